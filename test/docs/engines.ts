// Just enough of npm's version ranges to read the `engines.node` of podrace and its dependencies: `||`
// between alternatives, spaces between the comparators of one, and `^X.Y.Z`, `>=X.Y.Z`, `>X.Y.Z`,
// `<=`, `<`, `=X.Y.Z` or a bare version (missing parts are 0), `*` for any.

type Version = readonly [number, number, number];

export function version(text: string): Version {
  const [a = 0, b = 0, c = 0] = text
    .trim()
    .replace(/^v/, '')
    .split('.')
    .map((p) => Number(p.replace(/[^0-9].*$/, '') || '0'));
  return [a, b, c];
}

function compare(x: Version, y: Version): number {
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
}

function comparatorHolds(comparator: string, v: Version): boolean {
  const m = /^(\^|~|>=|<=|>|<|=)?\s*(.+)$/.exec(comparator.trim());
  if (m === null || m[2] === '*' || m[2] === 'x') return true;
  const op = m[1] ?? '=';
  const bound = version(m[2] ?? '');
  const c = compare(v, bound);
  switch (op) {
    case '^':
      return c >= 0 && (bound[0] > 0 ? v[0] === bound[0] : v[0] === 0 && v[1] === bound[1]);
    case '~':
      return c >= 0 && v[0] === bound[0] && v[1] === bound[1];
    case '>=':
      return c >= 0;
    case '<=':
      return c <= 0;
    case '>':
      return c > 0;
    case '<':
      return c < 0;
    default:
      return c === 0;
  }
}

/** Whether `range` (an engines.node value; absent: any) admits `v`. */
export function admits(range: string | undefined, v: string): boolean {
  if (range === undefined || range.trim() === '') return true;
  const ver = version(v);
  return range.split('||').some((alternative) =>
    alternative
      .trim()
      .replace(/(\^|~|>=|<=|>|<|=)\s+/g, '$1')
      .split(/\s+/)
      .filter((c) => c !== '')
      .every((c) => comparatorHolds(c, ver)),
  );
}
