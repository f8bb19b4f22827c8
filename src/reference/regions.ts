// Generated regions inside hand-written docs: the text between `<!-- BEGIN GENERATED: id -->` and
// `<!-- END GENERATED: id -->` belongs to `npm run docs`; everything around it is written by hand.

const begin = (id: string): string => `<!-- BEGIN GENERATED: ${id} (npm run docs) -->`;
const end = (id: string): string => `<!-- END GENERATED: ${id} -->`;

/** A region with its markers, ready to paste into a document. */
export function region(id: string, content: string): string {
  return `${begin(id)}\n${content.replace(/\n+$/, '')}\n${end(id)}`;
}

/** The ids of the regions a document has, in order. */
export function regionIds(text: string): string[] {
  return [...text.matchAll(/<!-- BEGIN GENERATED: (\S+) \(npm run docs\) -->/g)].map((m) => m[1] ?? '');
}

/** `text` with region `id`'s content replaced; throws when the document lacks the region. */
export function replaceRegion(text: string, id: string, content: string): string {
  const from = text.indexOf(begin(id));
  const to = text.indexOf(end(id));
  if (from < 0 || to < from) throw new Error(`no generated region "${id}" (${begin(id)} ... ${end(id)})`);
  return text.slice(0, from) + region(id, content) + text.slice(to + end(id).length);
}
