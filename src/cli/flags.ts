// Flag definitions shared by several commands, with their help texts: plain data, so that registering the
// commands (and printing their help) loads nothing else.

export const runFileOptions = {
  trace: {
    type: 'string',
    requiresArg: true,
    describe: 'write a Chrome trace (Perfetto) to this file',
  },
  timeline: {
    type: 'string',
    requiresArg: true,
    describe: 'write a self-contained HTML timeline to this file',
  },
} as const;

const list = { type: 'string', requiresArg: true, array: true } as const;

export const eventsOptions = {
  events: {
    type: 'boolean',
    describe: 'print every fact of the run (filtered by the flags below) instead of the timeline',
  },
  node: {
    ...list,
    describe: 'events: only this node (repeatable or a,b; `cluster`: API server, controllers)',
  },
  pod: { ...list, describe: 'events: only this pod (a name or a UID)' },
  volume: { ...list, describe: 'events: only this volume' },
  kind: {
    ...list,
    describe: 'events: only this fact kind, `violation`, or an invariant ID (its violations)',
  },
  since: { type: 'string', requiresArg: true, describe: 'events: from this virtual time on (e.g. 80s)' },
  until: { type: 'string', requiresArg: true, describe: 'events: up to this virtual time (e.g. 110s)' },
} as const;

export const maxEventsFlag = {
  type: 'string',
  requiresArg: true,
  describe: 'event budget of a run (default: sized from the scenario: its horizon, nodes and pods)',
} as const;
