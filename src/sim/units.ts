// Durations and sizes as users write them (`250ms`, `30s`, `5m`, `10Gi`), shared by the scenario loader
// and the CLI. Pure functions: they return a value or an error message, they never throw.

export type ParseResult = { ok: true; value: number } | { ok: false; error: string };

const durationPattern = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;
const durationUnitMs: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * Virtual time is an integer count of milliseconds; a duration that is not a whole ms is an error. The
 * decimal is read exactly (integer arithmetic on its digits, never through a float): `1.005s` is 1005 ms.
 */
export function parseDurationMs(text: string): ParseResult {
  const match = durationPattern.exec(text.trim());
  if (match === null) return { ok: false, error: `expected a duration like 250ms, 30s or 5m, got "${text}"` };
  const unitMs = durationUnitMs[match[2] ?? ''];
  if (unitMs === undefined) return { ok: false, error: `unknown duration unit in "${text}"` };
  const [whole = '0', fraction = ''] = (match[1] ?? '0').split('.');
  const scale = 10n ** BigInt(fraction.length);
  const scaled = (BigInt(whole) * scale + BigInt(fraction === '' ? '0' : fraction)) * BigInt(unitMs);
  if (scaled % scale !== 0n) {
    return { ok: false, error: `duration "${text}" is not a whole number of milliseconds` };
  }
  const value = scaled / scale;
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) return { ok: false, error: `duration "${text}" is too large` };
  return { ok: true, value: Number(value) };
}

const sizePattern = /^(\d+)(Ki|Mi|Gi|Ti)?$/;
const sizeUnitBytes: Record<string, number> = { Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4 };

export function parseSizeBytes(text: string): ParseResult {
  const match = sizePattern.exec(text.trim());
  if (match === null) return { ok: false, error: `expected a size like 512Mi, 10Gi or 1Ti, got "${text}"` };
  const unit = match[2];
  const value = Number(match[1]) * (unit === undefined ? 1 : (sizeUnitBytes[unit] ?? 1));
  if (!Number.isSafeInteger(value)) return { ok: false, error: `size "${text}" is too large` };
  return { ok: true, value };
}

/** `--seed` accepts decimal or 0x-hex 32-bit unsigned integers. */
export function parseSeed(text: string): ParseResult {
  const trimmed = text.trim();
  let value: number;
  if (/^0[xX][0-9a-fA-F]{1,8}$/.test(trimmed)) value = Number.parseInt(trimmed.slice(2), 16);
  else if (/^\d{1,10}$/.test(trimmed)) value = Number(trimmed);
  else return { ok: false, error: `expected a 32-bit integer seed (decimal or 0x-hex), got "${text}"` };
  if (value > 0xffff_ffff) return { ok: false, error: `seed ${text} does not fit in 32 bits` };
  return { ok: true, value };
}

export function formatDurationMs(ms: number): string {
  if (ms % 60_000 === 0 && ms !== 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0 && ms !== 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}
