// The ASCII fast path the bundle (scripts/bundle.mjs) wraps around each string-width that yargs' help
// layout imports (cliui, wrap-ansi). string-width segments graphemes and builds an emoji regular expression
// per character; for printable ASCII the width is the length (one column a character, none wide, none an
// emoji), and anything else (a control character, an ANSI escape, any non-ASCII) goes to the real one.
export function withAsciiFastPath(real) {
  return function stringWidth(string, options) {
    if (typeof string !== 'string') return real(string, options);
    for (let i = 0; i < string.length; i++) {
      const c = string.charCodeAt(i);
      if (c < 0x20 || c > 0x7e) return real(string, options);
    }
    return string.length;
  };
}
