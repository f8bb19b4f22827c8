// The YAML syntax errors of a scenario file as its reader needs them: the first error of each region, not
// the cascade after it, and an unclosed quote pointed at where the string opens. After one mistake (a
// missing `}`, a stray `-`, a line indented one space too far) the yaml package has lost its place, and
// what it reports on that line and the lines right after it ("Unexpected scalar token", "Implicit keys
// need to be on a single line", ... up to every token of the rest of the file) are consequences of it.

/** One syntax error as the yaml package reports it: its code, message and source offset. */
export interface YamlSyntaxError {
  readonly code: string;
  readonly message: string;
  readonly offset: number;
}

/**
 * The errors to print, by offset: of each region only its first. A region starts at an error and takes
 * in every later error on the same line as the previous one or on the line right after it; an error
 * after a line without one starts the next region (an independent mistake further down).
 */
export function firstOfEachRegion(
  errors: readonly YamlSyntaxError[],
  lineOf: (offset: number) => number,
): YamlSyntaxError[] {
  const sorted = [...errors].sort((a, b) => a.offset - b.offset);
  const kept: YamlSyntaxError[] = [];
  let lastLine = Number.NEGATIVE_INFINITY;
  for (const e of sorted) {
    const line = lineOf(e.offset);
    if (line > lastLine + 1) kept.push(e);
    lastLine = Math.max(lastLine, line);
  }
  return kept;
}

/**
 * A quoted string that is never closed runs to the end of the file, where the yaml package reports it
 * ("Missing closing "quote", at the last line): pointed instead at its opening quote, the place to fix.
 * No unescaped closing quote follows the opening one (else the string would have ended there), so the
 * opening quote is the last such quote before the error.
 */
export function unclosedQuote(error: YamlSyntaxError, text: string): YamlSyntaxError {
  const m = /^Missing closing (["'])quote/.exec(error.message);
  if (error.code !== 'MISSING_CHAR' || m === null) return error;
  const quote = m[1] ?? '"';
  const open =
    quote === '"' ? openingDoubleQuote(text, error.offset) : openingSingleQuote(text, error.offset);
  if (open === undefined) return error;
  return {
    code: error.code,
    message: `missing closing ${quote}: the string that starts here runs to the end of the file`,
    offset: open,
  };
}

/** The last `"` before `end` that no odd run of backslashes escapes. */
function openingDoubleQuote(text: string, end: number): number | undefined {
  for (let i = Math.min(end, text.length) - 1; i >= 0; i--) {
    if (text[i] !== '"') continue;
    let backslashes = 0;
    while (i - 1 - backslashes >= 0 && text[i - 1 - backslashes] === '\\') backslashes++;
    if (backslashes % 2 === 0) return i;
  }
  return undefined;
}

/** The last `'` before `end` that is not half of a `''` (an escaped quote inside the string). */
function openingSingleQuote(text: string, end: number): number | undefined {
  for (let i = Math.min(end, text.length) - 1; i >= 0; i--) {
    if (text[i] !== "'") continue;
    if (i > 0 && text[i - 1] === "'") {
      i--; // a '' pair: part of the string
      continue;
    }
    return i;
  }
  return undefined;
}
