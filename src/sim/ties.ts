// Same-instant tie-breaks as a pure function of (seed, owner, instant). A drawn stream would give every
// event the next number of one shared sequence, so an event left out (an idle loop round that elision
// skips) would move the ties of every later event, and with them every interleaving. A hash of the owner
// (a process, or one scheduled callback) and the target instant gives the same tie to the same event
// whether or not any other event was ever scheduled.

/** murmur3's 32-bit finaliser: every input bit flips about half of the output bits. */
export function mix32(h: number): number {
  let x = h;
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

const TWO_POW_21 = 2 ** 21;
const TWO_POW_32 = 2 ** 32;

/** The part of an owner's ties that depends on the owner alone: computed once, when it is created. */
export function tieKeyOf(seed: number, id: number): number {
  return mix32(seed ^ Math.imul(id, 0x9e3779b1));
}

/**
 * A 53-bit tie in [0, 2^53) for the owner with key `key` (tieKeyOf) at `timeMs`: 32 bits that mix the
 * owner and the instant, then 21 bits of the owner's key, so two events pending at one instant tie only
 * if their owners' keys collide too (odds of 2^-53; then insertion order decides).
 */
export function tieAt(key: number, timeMs: number): number {
  // ToUint32 is the time modulo 2^32 (no float modulo on the hot path); the high word is 0 for 49 days.
  const lo = timeMs >>> 0;
  const hi = timeMs > 0xffffffff ? Math.floor(timeMs / TWO_POW_32) : 0;
  return mix32(key ^ lo ^ Math.imul(hi, 0x27d4eb2f)) * TWO_POW_21 + (key >>> 11);
}

/** tieAt(tieKeyOf(seed, id), timeMs). */
export function tieOf(seed: number, id: number, timeMs: number): number {
  return tieAt(tieKeyOf(seed, id), timeMs);
}

/** Seeds of the three families of owners, so that process 7 and callback 7 do not share ties. */
export const PROCESS_SALT = 0x3c6ef372;
export const CALLBACK_SALT = 0xa54ff53a;
export const SELECT_SALT = 0x510e527f;
