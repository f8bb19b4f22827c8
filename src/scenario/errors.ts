// The error for bad user input (a scenario file, a folder, a flag): printed as one or a few lines, exit
// code 2, never a stack trace. It lives with the scenario layer, which throws it most; the CLI formats it.

/** Bad input from the user. `located`: the message starts with where (`file:line:col: ...` or `file: ...`). */
export class InputError extends Error {
  override readonly name = 'InputError';
  /** Each line starts with its location, as editors and CI parse it: printed as it is, with no prefix. */
  readonly located: boolean;

  constructor(message: string, options: { readonly located?: boolean } = {}) {
    super(message);
    this.located = options.located ?? false;
  }
}

/** An input file or folder that cannot be used: `path: reason`, located at the path. */
export function fileError(path: string, reason: string): InputError {
  return new InputError(`${path}: ${reason}`, { located: true });
}
