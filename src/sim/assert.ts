// Assertions on pre/postconditions and invariants of podrace itself (TigerBeetle style): a bad internal
// state must fail loudly as an internal error (exit 3), never be carried on silently.

export class AssertionError extends Error {
  override readonly name = 'AssertionError';
}

export function assert(condition: boolean, message: string): asserts condition {
  if (!condition) throw new AssertionError(message);
}

export function unreachable(value: never, what: string): never {
  throw new AssertionError(`unreachable: ${what}: ${String(value)}`);
}
