// The StrykerJS sample beside the catalogue (docs/mutation.md, "StrykerJS beside the catalogue"): pure
// functions that turn the mutants Stryker's instrumenter generates for the three folders into a
// reproducible stratified sample and into whole-file edits the catalogue's runner (run.ts) can build and
// judge with its own budget. Nothing here imports Stryker: main.ts loads it from an install outside the
// repository's dependencies and hands these functions plain objects.

/** The folders the sample covers (issue 22: the kubelet, the volume plugins, the attach/detach controller). */
export const FOLDERS = ['src/kubelet/', 'src/volume/', 'src/cluster/attachdetach/'] as const;
export type Folder = (typeof FOLDERS)[number];

/** A mutant as the instrumenter reports it: lines and columns 0-based, the end exclusive. */
export interface StrykerMutant {
  /** Repository-relative, e.g. 'src/kubelet/kubelet.ts'. */
  readonly file: string;
  readonly mutatorName: string;
  readonly replacement: string;
  readonly start: { readonly line: number; readonly column: number };
  readonly end: { readonly line: number; readonly column: number };
}

export function folderOf(file: string): Folder | undefined {
  return FOLDERS.find((f) => file.startsWith(f));
}

/**
 * StringLiteral mutants are kept out of the drawn sample and counted apart (the brief's rule for log text).
 * In this port they are seldom log text (it has no logger): they are error messages, fact names and
 * state strings, so some of them do carry behaviour; docs/mutation.md says how many of each.
 */
export function isSampled(m: Pick<StrykerMutant, 'mutatorName'>): boolean {
  return m.mutatorName !== 'StringLiteral';
}

/** The character offset of a 0-based line and column in `text` (lines split on '\n'). */
export function offsetOf(text: string, line: number, column: number): number {
  let at = 0;
  for (let l = 0; l < line; l++) {
    const nl = text.indexOf('\n', at);
    if (nl < 0) throw new Error(`line ${line + 1} is past the end of the text`);
    at = nl + 1;
  }
  const eol = text.indexOf('\n', at);
  if (column > (eol < 0 ? text.length : eol) - at)
    throw new Error(`column ${column} is past line ${line + 1}`);
  return at + column;
}

/** The file's text with the mutant's replacement put in place of its range. */
export function applyStryker(text: string, m: Pick<StrykerMutant, 'start' | 'end' | 'replacement'>): string {
  const from = offsetOf(text, m.start.line, m.start.column);
  const to = offsetOf(text, m.end.line, m.end.column);
  if (to < from) throw new Error('the mutant ends before it starts');
  return text.slice(0, from) + m.replacement + text.slice(to);
}

/** `file:line:col` with 1-based line and column, as an editor shows it. */
export function whereOf(m: Pick<StrykerMutant, 'file' | 'start'>): string {
  return `${m.file}:${m.start.line + 1}:${m.start.column + 1}`;
}

/** A stable order that does not depend on Stryker's id numbering: file, position, mutator, replacement. */
export function compareMutants(a: StrykerMutant, b: StrykerMutant): number {
  const key = (m: StrykerMutant): readonly (string | number)[] => [
    m.file,
    m.start.line,
    m.start.column,
    m.end.line,
    m.end.column,
    m.mutatorName,
    m.replacement,
  ];
  const ka = key(a);
  const kb = key(b);
  for (let i = 0; i < ka.length; i++) {
    const x = ka[i] as string | number;
    const y = kb[i] as string | number;
    if (x < y) return -1;
    if (x > y) return 1;
  }
  return 0;
}

/** mulberry32: a 32-bit seeded generator, enough to shuffle a list reproducibly (never the simulation's). */
export function mulberry32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * How many of `size` go to each folder: proportional to its sampled-mutant count (largest remainder,
 * ties to the earlier folder), so that the pooled kill rate estimates the whole population's.
 */
export function allocate(counts: Readonly<Record<Folder, number>>, size: number): Record<Folder, number> {
  const total = FOLDERS.reduce((s, f) => s + counts[f], 0);
  const n = Math.min(size, total);
  const exact = FOLDERS.map((f) => (total === 0 ? 0 : (n * counts[f]) / total));
  const out = FOLDERS.map((_, i) => Math.floor(exact[i] as number));
  let left = n - out.reduce((s, x) => s + x, 0);
  const byRemainder = FOLDERS.map((_, i) => i).sort(
    (a, b) =>
      (exact[b] as number) - (out[b] as number) - ((exact[a] as number) - (out[a] as number)) || a - b,
  );
  for (const i of byRemainder) {
    if (left === 0) break;
    out[i] = (out[i] as number) + 1;
    left--;
  }
  return Object.fromEntries(FOLDERS.map((f, i) => [f, out[i]])) as Record<Folder, number>;
}

/**
 * The sample: StringLiteral mutants left out, the rest put in the stable order, shuffled per folder with
 * the seed (Fisher-Yates) and cut to the folder's share; returned in the stable order. The same mutants,
 * size and seed always draw the same sample.
 */
export function drawSample(mutants: readonly StrykerMutant[], size: number, seed: number): StrykerMutant[] {
  const eligible = mutants.filter(isSampled).slice().sort(compareMutants);
  const per = Object.fromEntries(FOLDERS.map((f) => [f, [] as StrykerMutant[]])) as Record<
    Folder,
    StrykerMutant[]
  >;
  for (const m of eligible) {
    const f = folderOf(m.file);
    if (f !== undefined) per[f].push(m);
  }
  const counts = Object.fromEntries(FOLDERS.map((f) => [f, per[f].length])) as Record<Folder, number>;
  const shares = allocate(counts, size);
  const rand = mulberry32(seed);
  const out: StrykerMutant[] = [];
  for (const f of FOLDERS) {
    const xs = per[f];
    for (let i = xs.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [xs[i], xs[j]] = [xs[j] as StrykerMutant, xs[i] as StrykerMutant];
    }
    out.push(...xs.slice(0, shares[f]));
  }
  return out.sort(compareMutants);
}

/** Per folder, per mutator: how many mutants (the table docs/mutation.md shows). */
export function countTable(mutants: readonly StrykerMutant[]): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const m of mutants) {
    const f = folderOf(m.file) ?? 'other';
    const row = out.get(m.mutatorName) ?? new Map<string, number>();
    row.set(f, (row.get(f) ?? 0) + 1);
    out.set(m.mutatorName, row);
  }
  return out;
}
