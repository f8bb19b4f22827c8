// Exit codes of every podrace command (docs/cli.md) and the error for bad user input.

export const EXIT = { OK: 0, VIOLATION: 1, USAGE: 2, INTERNAL: 3 } as const;

/** Bad input from the user: printed as one or a few lines, exit code 2, never a stack trace. */
export class InputError extends Error {
  override readonly name = 'InputError';
}
