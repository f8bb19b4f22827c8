// Reading the documentation as a reader does: the files, their fenced code blocks, their links and the
// GitHub anchors of their headings, and the `podrace` command lines of their shell examples.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const root = join(import.meta.dirname, '..', '..');

/** README.md and every Markdown file under docs/, relative to the repository. */
export function docFiles(): string[] {
  const docs = readdirSync(join(root, 'docs'), { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => join('docs', f));
  return ['README.md', ...docs];
}

export function readDoc(file: string): string {
  return readFileSync(join(root, file), 'utf8');
}

export interface CodeBlock {
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly lang: string;
  readonly text: string;
}

export function codeBlocks(file: string): CodeBlock[] {
  const lines = readDoc(file).split('\n');
  const out: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(\S*)\s*$/.exec(lines[i] ?? '');
    if (open === null) continue;
    const indent = open[1]?.length ?? 0;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !/^\s*```\s*$/.test(lines[j] ?? ''))
      body.push((lines[j++] ?? '').slice(indent));
    out.push({ file, line: i + 1, lang: open[2] ?? '', text: body.join('\n') });
    i = j;
  }
  return out;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, each space a hyphen. */
export function slug(heading: string): string {
  return heading
    .replace(/`/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Every anchor of a document, duplicates numbered as GitHub does (`x`, `x-1`, ...). */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.*?)\s*$/.exec(line);
    if (m === null) continue;
    const base = slug(m[1] ?? '');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Markdown links outside code: `[text](target)`, with their line. */
export function links(file: string): { readonly line: number; readonly target: string }[] {
  const out: { line: number; target: string }[] = [];
  let fenced = false;
  readDoc(file)
    .split('\n')
    .forEach((line, i) => {
      if (/^\s*```/.test(line)) fenced = !fenced;
      if (fenced) return;
      const prose = line.replace(/`[^`]*`/g, '');
      for (const m of prose.matchAll(/\]\(([^)\s]+)\)/g)) out.push({ line: i + 1, target: m[1] ?? '' });
    });
  return out;
}

/** A shell line split into words (single and double quotes kept together, quotes removed). */
export function words(line: string): string[] {
  const out: string[] = [];
  for (const m of line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)) out.push(m[1] ?? m[2] ?? m[3] ?? '');
  return out;
}

export interface ShellExample {
  readonly file: string;
  readonly line: number;
  /** The arguments after `podrace`. */
  readonly args: readonly string[];
  /** The comment after the command, if any (`# exit 1: ...`). */
  readonly comment: string;
}

/**
 * The `podrace` (or `npx podrace`) command lines of a document's shell blocks, and of `run:` steps in
 * its YAML blocks (CI examples). Continuation lines are joined; a pipe or redirection ends the command;
 * GitHub expressions (`${{ ... }}`) become 1.
 */
export function shellExamples(file: string): ShellExample[] {
  const out: ShellExample[] = [];
  for (const b of codeBlocks(file)) {
    if (!['sh', 'bash', 'console', 'shell', 'yaml'].includes(b.lang)) continue;
    const lines = b.text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      let text = lines[i] ?? '';
      const start = i;
      while (/\\\s*$/.test(text) && i + 1 < lines.length)
        text = `${text.replace(/\\\s*$/, ' ')}${lines[++i]}`;
      if (b.lang === 'yaml') {
        const run = /^\s*-?\s*run:\s*(.*)$/.exec(text);
        if (run === null) continue;
        text = run[1] ?? '';
      }
      text = text.replace(/^\s*\$\s+/, '').replace(/\$\{\{[^}]*\}\}/g, '1');
      const hash = /\s#\s?(.*)$/.exec(text);
      const comment = hash?.[1]?.trim() ?? '';
      if (hash !== null) text = text.slice(0, hash.index);
      // The command may follow a pipe (`kubectl logs ... | podrace merge -`); it ends at the next one.
      for (const part of text.split(/\|\||&&|;|\|/)) {
        const cmd = part.replace(/\s[0-9]?>.*$/, '').trim();
        const m = /^(?:npx\s+)?podrace(?:\s+(.*))?$/.exec(cmd);
        if (m !== null) out.push({ file, line: b.line + 1 + start, args: words(m[1] ?? ''), comment });
      }
    }
  }
  return out;
}
