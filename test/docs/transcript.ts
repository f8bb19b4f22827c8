// The terminal sessions of the docs (a code block that starts with `$ npx podrace ...`, then what it
// printed) and how a session's output is compared with what podrace prints: line by line, numbers
// included. In a block, a line `...` stands for any number of lines and `...` inside a line for any text;
// wall-clock figures (`173.5ms wall`, `"wallMs":1900`) are the one thing that differs between two runs
// and are not compared.
import { codeBlocks, words } from './docText.js';

export interface Transcript {
  readonly file: string;
  readonly line: number;
  /** The arguments after `podrace`. */
  readonly args: readonly string[];
  /** The printed lines, as the block shows them. */
  readonly output: readonly string[];
}

/** Every `$ npx podrace ...` session of the docs: the command (continuation lines joined) and its output. */
export function transcripts(file: string): Transcript[] {
  const out: Transcript[] = [];
  for (const b of codeBlocks(file)) {
    if (!['', 'console'].includes(b.lang)) continue;
    const lines = b.text.split('\n');
    const first = /^\$ (?:npx )?podrace (.*)$/.exec(lines[0] ?? '');
    if (first === null) continue;
    let command = first[1] ?? '';
    let i = 1;
    while (/\\\s*$/.test(command) && i < lines.length)
      command = `${command.replace(/\\\s*$/, ' ')}${lines[i++]}`;
    out.push({ file, line: b.line, args: words(command), output: lines.slice(i) });
  }
  return out;
}

const WALL = [
  [/\d+(\.\d+)?ms wall/g, '#ms wall'],
  [/"wallMs":\d+(\.\d+)?/g, '"wallMs":#'],
] as const;

function masked(line: string): string {
  return WALL.reduce((l, [re, to]) => l.replace(re, to), line).trimEnd();
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A documented line as a pattern: `...` inside it is any text. */
function linePattern(doc: string): RegExp {
  return new RegExp(`^${masked(doc).split('...').map(escapeRegExp).join('.*')}$`);
}

const isGap = (doc: string) => doc.trim() === '...';

/**
 * Whether the actual lines match the documented ones: each documented line one actual line, a `...` line
 * any number of them (none included). Returns the first documented line that could not be placed.
 */
export function mismatch(doc: readonly string[], actual: readonly string[]): string | undefined {
  const got = actual.map(masked);
  const patterns = doc.map((d) => (isGap(d) ? undefined : linePattern(d)));
  // reach[j]: the documented lines so far can end just before actual line j.
  let reach = new Set([0]);
  for (const [k, p] of patterns.entries()) {
    const next = new Set<number>();
    for (const j of reach) {
      if (p === undefined) for (let x = j; x <= got.length; x++) next.add(x);
      else if (j < got.length && p.test(got[j] ?? '')) next.add(j + 1);
    }
    if (next.size === 0) return doc[k];
    reach = next;
  }
  return reach.has(got.length) ? undefined : '(the output goes on after the last documented line)';
}
