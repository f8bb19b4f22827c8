// Exit codes of every podrace command (docs/cli.md). Below the CLI: the fuzz campaign's summary states the
// code it ends with (exitReason), and a library user of src/testing.ts reads the same values.

export const EXIT = { OK: 0, VIOLATION: 1, USAGE: 2, INTERNAL: 3 } as const;
