// Ported from k8s.io/apimachinery/pkg/api/resource/quantity.go (v1.28.0; the grammar and rounding are the
// same at v1.23.13): ParseQuantity's grammar and suffixes, its round-up to nano precision, and the
// ceil(q * 10^-scale) of ScaledValue behind MilliValue (cpu) and Value (memory). Exact: BigInt on the
// digits, never a float, so "0.1" cores is 100 millicores and "1.5Gi" is 1610612736 bytes.

/** A parsed quantity as the kubelet reads it: MilliValue() and Value(), both rounded up. */
export interface QuantityValue {
  /** q.MilliValue(): ceil(q * 1000), what the fit check reads of cpu. */
  readonly milli: number;
  /** q.Value(): ceil(q), what the fit check reads of memory. */
  readonly value: number;
}

export type QuantityParse = { ok: true; value: QuantityValue } | { ok: false; error: string };

/** decimalSI suffixes and their base-10 exponents (quantitySuffixer's decSuffixes). */
const DECIMAL_SI: Readonly<Record<string, number>> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
/** binarySI suffixes and their base-2 exponents (binSuffixes). */
const BINARY_SI: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

/**
 * <signedNumber><suffix>, as parseQuantityString reads it: a sign, digits with an optional '.' and
 * fraction ("1.", ".5"), then the suffix: letters of "eEinumkKMGTP", an optional sign and digits.
 */
const QUANTITY = /^([+-]?)(\d*)(?:\.(\d*))?([eEinumkKMGTP]*[+-]?\d*)$/;
const EXPONENT = /^[eE]([+-]?\d+)$/;

/** The largest value podrace keeps exactly (a JS number); upstream's cap is 2^63-1. */
const MAX_EXACT = BigInt(Number.MAX_SAFE_INTEGER);
const NANO = 10n ** 9n;

const QUANTITY_PHRASE = 'a quantity like 500m, 1, 2.5, 128Mi or 1Gi';

/**
 * resource.ParseQuantity for a request or an allocatable amount: what a pod spec or a node status may
 * carry. Negative quantities parse upstream but fail API validation of requests (ValidateNonnegativeQuantity),
 * so they are an error here; so is one whose milli-value passes 2^53-1, which podrace cannot hold exactly.
 */
export function parseQuantity(text: string): QuantityParse {
  const bad = { ok: false as const, error: `expected ${QUANTITY_PHRASE}, got "${text}"` };
  if (text.length === 0 || text.length > 64) return bad;
  const m = QUANTITY.exec(text);
  if (m === null) return bad;
  const [, sign = '', whole = '', fraction = '', suffix = ''] = m;
  // "." alone, or a sign with no digits, is no number (upstream's inf.Dec SetString refuses it).
  if (whole === '' && fraction === '') return bad;
  let exponent10 = 0;
  let exponent2 = 0;
  const dec = DECIMAL_SI[suffix];
  const bin = BINARY_SI[suffix];
  if (dec !== undefined) exponent10 = dec;
  else if (bin !== undefined) exponent2 = bin;
  else {
    // quantitySuffixer.interpret: anything else must be a decimal exponent, "e3" or "E-2".
    const e = EXPONENT.exec(suffix);
    if (e === null) return { ok: false, error: `unknown quantity suffix "${suffix}" in "${text}"` };
    const n = Number(e[1]);
    if (!Number.isSafeInteger(n) || Math.abs(n) > 100) return bad;
    exponent10 = n;
  }
  if (sign === '-' && /[1-9]/.test(whole + fraction)) {
    return { ok: false, error: `a quantity must be greater than or equal to 0, got "${text}"` };
  }
  // value = digits * 10^(exponent10 - fraction digits) * 2^exponent2, kept as nanos rounded up (inf.RoundUp).
  const digits = BigInt(`${whole}${fraction}` === '' ? '0' : `${whole}${fraction}`) << BigInt(exponent2);
  const scale10 = exponent10 - fraction.length + 9; // the power of ten that turns the value into nanos
  let nanos: bigint;
  if (scale10 >= 0) nanos = digits * 10n ** BigInt(scale10);
  else nanos = ceilDiv(digits, 10n ** BigInt(-scale10));
  const milli = ceilDiv(nanos, NANO / 1000n);
  const value = ceilDiv(nanos, NANO);
  if (milli > MAX_EXACT) {
    return { ok: false, error: `quantity "${text}" is too large (at most ${Number.MAX_SAFE_INTEGER}m)` };
  }
  return { ok: true, value: { milli: Number(milli), value: Number(value) } };
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}

/** A cpu amount as Kubernetes canonicalises it: whole cores when it is one, else millicores. */
export function formatMilliCPU(milli: number): string {
  return milli % 1000 === 0 ? String(milli / 1000) : `${milli}m`;
}

/** A memory amount in the largest binary suffix that keeps it exact (as Quantity's canonical form). */
export function formatMemoryBytes(bytes: number): string {
  const units = ['Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
  let value = bytes;
  let unit = '';
  for (const u of units) {
    if (value === 0 || value % 1024 !== 0) break;
    value /= 1024;
    unit = u;
  }
  return `${value}${unit}`;
}
