// User text on its way to a terminal: a scenario's error strings, names and file names reach the timeline,
// the events view and error lines, and a crafted one must not drive the terminal.

/**
 * Text from an input (a scenario's values and comments, a file name) as the terminal may show it: control
 * characters other than tab and newline (ESC, BEL, CR, the C1 range) as `\xNN`, so that a crafted file
 * cannot move the cursor, recolour or retitle the terminal, or hide a line. Applied before podrace's own
 * colours are added.
 */
export function escapeControl(text: string): string {
  if (!hasControl(text)) return text; // the common case: nothing to copy
  let out = '';
  for (const c of text) {
    const code = c.charCodeAt(0);
    const control = (code < 0x20 && c !== '\t' && c !== '\n') || (code >= 0x7f && code <= 0x9f);
    out += control ? `\\x${code.toString(16).padStart(2, '0')}` : c;
  }
  return out;
}

function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if ((code < 0x20 && code !== 0x09 && code !== 0x0a) || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}
