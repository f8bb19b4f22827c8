// The actionNoop fact: a timeline entry that changed nothing, or whose effect never came, with the
// entry's line and the reason (docs/watching.md, "Entries that did nothing").
import type { Fact } from '../facts.js';
import type { Bus, Sim } from '../sim/index.js';

export interface NoopSubject {
  readonly pod?: string | undefined;
  readonly volume?: string | undefined;
  readonly fault?: string | undefined;
}

export function publishNoop(
  world: { readonly sim: Sim; readonly bus: Bus<Fact> },
  node: string,
  action: string,
  line: number,
  reason: string,
  about: NoopSubject = {},
): void {
  world.bus.publish({ kind: 'actionNoop', atMs: world.sim.nowMs, node, action, line, ...about, reason });
}
