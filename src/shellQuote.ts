// Quoting for the command lines podrace prints; dependency-free, so the CLI's start-up may load it.
/**
 * One word of a command line podrace prints for pasting into a POSIX shell: as it is when it holds only
 * characters no shell treats specially, else in single quotes (a `'` inside as `'\''`), so a path with a
 * space stays one word and a crafted file name (`$(rm -rf ~).yaml`, `a;b`) is never run. Control
 * characters inside are escaped for the terminal by the CLI's output.
 */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", "'\\''")}'`;
}
