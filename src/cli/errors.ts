// The CLI's view of exit codes and input errors: EXIT lives below the CLI (src/exitCodes.ts, the fuzz
// campaign states its code too) and InputError in the scenario layer (src/scenario/errors.ts); both are
// re-exported here for the CLI's modules.

export { EXIT } from '../exitCodes.js';

export { InputError } from '../scenario/errors.js';
