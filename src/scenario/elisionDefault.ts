// Whether runs skip idle loop rounds unless they say (src/sim/elision.ts). A module of its own, importing
// nothing, so the CLI can set it from a flag before it loads the simulator.

/**
 * Whether runs that do not say (`RunOptions.elide` undefined) skip idle loop rounds. The CLI's
 * `--no-elide` turns it off for the whole process (and a fuzz campaign passes it on to its workers), so
 * every run of a command, shrinking and the oracle included, goes the plain way.
 */
let elideByDefault = true;

export function setElisionDefault(on: boolean): void {
  elideByDefault = on;
}

export function elisionDefault(): boolean {
  return elideByDefault;
}
