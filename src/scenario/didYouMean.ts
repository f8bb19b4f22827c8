// "did you mean": the nearest of the names there are to a name that is not one of them, for error messages.

/**
 * The optimal string alignment distance (insertions, deletions, substitutions, adjacent swaps) of `a` and
 * `b`, ignoring case, when it is at most `limit`; otherwise more than `limit`. Only the diagonal band
 * |i - j| <= limit can hold such a distance, so only it is computed: linear in the names' length, as a
 * "did you mean" runs over up to 25,000 names of up to 253 characters.
 */
export function boundedDistance(a: string, b: string, limit: number): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  const over = limit + 1;
  if (Math.abs(x.length - y.length) > limit) return over;
  const n = y.length;
  // Rows i - 2, i - 1 and i; a cell outside the band reads as `over`.
  let before = new Array<number>(n + 1).fill(over);
  let previous = new Array<number>(n + 1).fill(over);
  let row = new Array<number>(n + 1).fill(over);
  for (let j = 0; j <= Math.min(n, limit); j++) previous[j] = j;
  for (let i = 1; i <= x.length; i++) {
    const lo = Math.max(1, i - limit);
    const hi = Math.min(n, i + limit);
    row[lo - 1] = lo - 1 === 0 && i <= limit ? i : over;
    let rowBest = row[lo - 1] ?? over;
    for (let j = lo; j <= hi; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      let best = Math.min(
        (previous[j] ?? over) + 1,
        (row[j - 1] ?? over) + 1,
        (previous[j - 1] ?? over) + cost,
      );
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1])
        best = Math.min(best, (before[j - 2] ?? over) + 1);
      row[j] = Math.min(best, over);
      rowBest = Math.min(rowBest, best);
    }
    if (hi + 1 <= n) row[hi + 1] = over;
    if (rowBest > limit) return over;
    [before, previous, row] = [previous, row, before];
  }
  return Math.min(previous[n] ?? over, over);
}

export function didYouMean(word: string, candidates: readonly string[]): string {
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.min(3, Math.floor(word.length / 3)));
  for (const c of candidates) {
    const d = boundedDistance(word, c, bestDistance);
    if (d <= bestDistance && (best === undefined || d < bestDistance)) {
      best = c;
      bestDistance = d;
    }
  }
  return best === undefined ? '' : ` (did you mean ${JSON.stringify(best)}?)`;
}
