// klog's structured form (1.21+): `"Message" key="quoted value" key=bare key=[a/b c/d] key={...}`. The
// message and quoted values are Go %q strings (strconv.Quote), lists come from klog.KObjs. Pure parsing.

export interface Structured {
  readonly message: string;
  readonly values: ReadonlyMap<string, string>;
}

/** Reads a Go-quoted string starting at `text[at]` (a `"`); returns its value and the index after it. */
export function readQuoted(text: string, at: number): { value: string; end: number } | null {
  if (text[at] !== '"') return null;
  let out = '';
  let i = at + 1;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') return { value: out, end: i + 1 };
    if (c === '\\' && i + 1 < text.length) {
      const e = text[i + 1]!;
      const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', '"': '"', '\\': '\\', "'": "'" };
      if (simple[e] !== undefined) {
        out += simple[e];
        i += 2;
        continue;
      }
      const hex = /^(?:x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8}))/.exec(text.slice(i + 1));
      if (hex !== null) {
        out += String.fromCodePoint(Number.parseInt(hex[1] ?? hex[2] ?? hex[3] ?? '0', 16));
        i += 1 + hex[0].length;
        continue;
      }
    }
    out += c;
    i++;
  }
  // Unterminated (a line cut short): what there is.
  return { value: out, end: text.length };
}

/** Reads a bracketed value (`[...]`, `{...}`) with nesting and quoted parts; the index after it. */
function readBracketed(text: string, at: number): number {
  const open = text[at]!;
  const close = open === '[' ? ']' : '}';
  let depth = 0;
  let i = at;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      i = readQuoted(text, i)?.end ?? text.length;
      continue;
    }
    if (c === open) depth++;
    else if (c === close && --depth === 0) return i + 1;
    i++;
  }
  return text.length;
}

/** The structured message and its key/value pairs; null when the text does not start with a quote. */
export function parseStructured(text: string): Structured | null {
  const msg = readQuoted(text, 0);
  if (msg === null) return null;
  const values = new Map<string, string>();
  let i = msg.end;
  while (i < text.length) {
    while (text[i] === ' ') i++;
    const key = /^([A-Za-z_][\w.]*)=/.exec(text.slice(i));
    if (key === null) break;
    i += key[0].length;
    const c = text[i];
    if (c === '"') {
      const q = readQuoted(text, i)!;
      values.set(key[1]!, q.value);
      i = q.end;
    } else if (c === '[' || c === '{') {
      const end = readBracketed(text, i);
      values.set(key[1]!, text.slice(i, end));
      i = end;
    } else {
      const end = text.indexOf(' ', i);
      const stop = end < 0 ? text.length : end;
      values.set(key[1]!, text.slice(i, stop));
      i = stop;
    }
  }
  return { message: msg.value, values };
}

/** klog.KObjs' list `[ns/name ns2/name2]` (or one `ns/name`) as namespace/name pairs. */
export function parseObjectList(value: string): { namespace: string; name: string }[] {
  const inner = value.replace(/^\[/, '').replace(/\]$/, '').trim();
  if (inner === '') return [];
  return inner.split(/\s+/).map((ref) => {
    const slash = ref.indexOf('/');
    return slash < 0
      ? { namespace: '', name: ref }
      : { namespace: ref.slice(0, slash), name: ref.slice(slash + 1) };
  });
}
