// String order for everything the simulation sorts: code-unit order, never localeCompare, so the order
// (and every trace, result and replay built on it) is the same on every machine whatever its locale.

/** Code-unit order of two strings: -1, 0 or 1 (a comparator for Array.prototype.sort). */
export function codeUnitOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
