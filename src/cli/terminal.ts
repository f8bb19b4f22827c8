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

export { escapeControl } from '../controlText.js';

/** A progress line on stderr, only when stderr is a terminal; `clear` wipes it. */
export function progressReporter(enabled: boolean): { update(text: string): void; clear(): void } {
  let shown = false;
  return {
    update(text) {
      if (!enabled) return;
      process.stderr.write(`\r\x1b[2K${text}`);
      shown = true;
    },
    clear() {
      if (shown) process.stderr.write('\r\x1b[2K');
      shown = false;
    },
  };
}
