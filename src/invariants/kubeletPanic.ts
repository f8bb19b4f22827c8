// kubelet-panic: a kubelet component failed in a way Go would panic (kubeletPanic): a nil dereference,
// GetMetrics on a block volume whose mapper embeds an unset MetricsProvider. Catches #101431
// (fixed by #97972 + #101587) and any other modelled nil dereference.
import type { Fact, FactKind } from '../facts.js';
import { secs } from './format.js';
import type { Checker, Violation } from './types.js';

export class KubeletPanic implements Checker {
  readonly id = 'kubelet-panic';
  readonly kinds: readonly FactKind[] = ['kubeletPanic'];

  onFact(f: Fact, report: (v: Violation) => void): void {
    if (f.kind !== 'kubeletPanic') return;
    report({
      invariant: this.id,
      atMs: f.atMs,
      node: f.node === '' ? null : f.node,
      pod: null,
      uid: null,
      volume: null,
      message: `kubelet on ${f.node || 'the cluster'} panicked at ${secs(f.atMs)} in ${f.component}: ${f.message.replace(/\s+/g, ' ')}`,
      causes: [f],
    });
  }

  onEnd(): void {}
}
