// Exit codes of every podrace command (docs/cli.md). InputError belongs to the scenario layer
// (src/scenario/errors.ts); it is re-exported here for the CLI's modules.

export const EXIT = { OK: 0, VIOLATION: 1, USAGE: 2, INTERNAL: 3 } as const;

export { InputError } from '../scenario/errors.js';
