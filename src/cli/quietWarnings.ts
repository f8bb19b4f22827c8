// Imported first by the CLI (src/cli.ts): Node's process warnings (an ExperimentalWarning, a
// MaxListenersExceededWarning) are not podrace's output, and a second line on standard error breaks the
// one-line error rule (`file:line:col: ...` and nothing else). The CLI process prints none; a library user
// of podrace/testing keeps Node's default.
process.removeAllListeners('warning');
process.on('warning', () => {});
