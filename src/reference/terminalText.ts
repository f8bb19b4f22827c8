// The docs' Markdown as terminal text: headings plain (bold in colour), links as their text, no backticks,
// tables in aligned columns, paragraphs and list items wrapped. Only the Markdown the glossary writes.

function inline(text: string): string {
  return text
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\*\*([^*]*)\*\*/g, '$1')
    .replace(/`([^`]*)`/g, '$1');
}

function wrap(text: string, width: number, first: string, rest: string): string[] {
  const out: string[] = [];
  let line = first;
  let empty = true;
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    if (!empty && line.length + 1 + word.length > width) {
      out.push(line);
      line = rest + word;
    } else line = empty ? line + word : `${line} ${word}`;
    empty = false;
  }
  out.push(line);
  return out;
}

function table(rows: readonly string[]): string[] {
  const cells = rows
    .filter((r) => !/^\|\s*-+/.test(r))
    .map((r) =>
      r
        .replace(/^\|/, '')
        .replace(/\|$/, '')
        .split('|')
        .map((c) => inline(c.trim())),
    );
  const widths: number[] = [];
  for (const row of cells) for (const [i, c] of row.entries()) widths[i] = Math.max(widths[i] ?? 0, c.length);
  return cells.map((row) =>
    `  ${row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ')}`.trimEnd(),
  );
}

export function markdownToText(
  markdown: readonly string[],
  o: { readonly width?: number; readonly bold?: (s: string) => string } = {},
): string[] {
  const width = o.width ?? 100;
  const bold = o.bold ?? ((s: string) => s);
  const out: string[] = [];
  let i = 0;
  while (i < markdown.length) {
    const line = markdown[i] ?? '';
    if (line.startsWith('|')) {
      const rows: string[] = [];
      while (i < markdown.length && (markdown[i] ?? '').startsWith('|')) rows.push(markdown[i++] ?? '');
      out.push(...table(rows));
      continue;
    }
    i++;
    const heading = /^#+\s+(.*)$/.exec(line);
    if (heading !== null) out.push(bold(inline(heading[1] ?? '')));
    else if (line.startsWith('- ')) out.push(...wrap(inline(line.slice(2)), width, '- ', '  '));
    else if (line.trim() === '') out.push('');
    else out.push(...wrap(inline(line), width, '', ''));
  }
  while (out[out.length - 1] === '') out.pop();
  return out;
}
