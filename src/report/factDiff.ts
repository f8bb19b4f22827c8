// Where two runs of one scenario part ways (`podrace diff`). Facts are compared for *what* happened, not
// *when*: two seeds or two fix sets shift virtual times from the first random draw on, yet the runs do
// the same things for a while. And they are compared per subject (a pod on a node, a volume on a node,
// a node's kubelet), not as one stream: independent components interleave differently (the volume
// manager's reconstruction before or after a pod's sandbox) without either run behaving differently.
// A subject diverges at its first fact that differs (kind, pod, volume, details); the first divergence
// of the runs is the earliest of those, and what each run did next is that subject's story from there.
import type { Fact } from '../facts.js';
import { describeFact } from './terminalTimeline.js';

/** A fact's content without its time, with sorted keys: equal for the same event in two runs. */
export function factKey(f: Fact): string {
  const { atMs: _atMs, ...rest } = f;
  const r = rest as Record<string, unknown>;
  return JSON.stringify(
    Object.fromEntries(
      Object.keys(r)
        .sort()
        .map((k) => [k, r[k]]),
    ),
  );
}

/** `node-a pod web`, `node-a volume lun-1`, `node-a kubelet`, `cluster volume lun-1`. */
export function subjectOf(f: Fact): string {
  return `${f.node === '' ? 'cluster' : f.node} ${describeFact(f).subject}`;
}

export interface SubjectDiff {
  readonly subject: string;
  /** How many of the subject's facts the runs share from the start. */
  readonly common: number;
  /** The last shared facts before the divergence (run A's). */
  readonly before: readonly Fact[];
  /** Each run's facts of the subject from the divergence on (empty: that run had no more). */
  readonly a: readonly Fact[];
  readonly b: readonly Fact[];
  /** When it diverged: the earlier of the two runs' first differing facts. */
  readonly atMs: number;
}

export interface FactDiff {
  readonly diverged: boolean;
  /** The subjects that diverge, earliest divergence first. */
  readonly subjects: readonly SubjectDiff[];
  /** How many subjects behave alike in both runs. */
  readonly alike: number;
}

function bySubject(facts: readonly Fact[]): Map<string, Fact[]> {
  const out = new Map<string, Fact[]>();
  for (const f of facts) {
    const s = subjectOf(f);
    const list = out.get(s);
    if (list === undefined) out.set(s, [f]);
    else list.push(f);
  }
  return out;
}

export function diffFacts(
  a: readonly Fact[],
  b: readonly Fact[],
  o: { readonly context: number; readonly next: number },
): FactDiff {
  const as = bySubject(a);
  const bs = bySubject(b);
  const subjects = [...new Set([...as.keys(), ...bs.keys()])].sort();
  const out: SubjectDiff[] = [];
  let alike = 0;
  for (const subject of subjects) {
    const fa = as.get(subject) ?? [];
    const fb = bs.get(subject) ?? [];
    let common = 0;
    const n = Math.min(fa.length, fb.length);
    while (common < n && factKey(fa[common] as Fact) === factKey(fb[common] as Fact)) common++;
    if (common === fa.length && common === fb.length) {
      alike++;
      continue;
    }
    const times = [fa[common]?.atMs, fb[common]?.atMs].filter((t): t is number => t !== undefined);
    out.push({
      subject,
      common,
      before: fa.slice(Math.max(0, common - o.context), common),
      a: fa.slice(common, common + o.next),
      b: fb.slice(common, common + o.next),
      atMs: Math.min(...times),
    });
  }
  out.sort((x, y) => x.atMs - y.atMs || (x.subject < y.subject ? -1 : x.subject > y.subject ? 1 : 0));
  return { diverged: out.length > 0, subjects: out, alike };
}
