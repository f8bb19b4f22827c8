// The terminal and the wall clock, as every command uses them: whether to colour, and wall time for
// `wallMs` and time limits (never inside the simulation).

/**
 * NO_COLOR is honoured unless FORCE_COLOR is set (as Node does); --color / --no-color win. FORCE_COLOR
 * as chalk's supports-color reads it: `0` and `false` turn colour off, anything else (`1`, `true`, empty)
 * on.
 */
export function colorEnabled(flag: unknown, isTTY: boolean, env: NodeJS.ProcessEnv): boolean {
  if (flag === true) return true;
  if (flag === false) return false;
  const force = env['FORCE_COLOR'];
  if (force !== undefined) return force !== '0' && force !== 'false';
  if (env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '') return false;
  if (env['TERM'] === 'dumb') return false;
  return isTTY;
}

export function wallClockMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/**
 * Text from an input (a scenario's values and comments, a file name) as the terminal may show it: control
 * characters other than tab and newline (ESC, BEL, CR, the C1 range) as `\xNN`, so that a crafted file
 * cannot move the cursor, recolour or retitle the terminal, or hide a line. Applied before podrace's own
 * colours are added.
 */
export function escapeControl(text: string): string {
  let out = '';
  for (const c of text) {
    const code = c.charCodeAt(0);
    const control = (code < 0x20 && c !== '\t' && c !== '\n') || (code >= 0x7f && code <= 0x9f);
    out += control ? `\\x${code.toString(16).padStart(2, '0')}` : c;
  }
  return out;
}
