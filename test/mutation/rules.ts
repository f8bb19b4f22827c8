// Which part of the port a mutant plants its bug in, and which files it may never touch: the rules the
// validator (validate.ts), the runner and the tests apply to the catalogue (catalogue.ts).

/** The parts of the port the catalogue spreads its mutants over (each needs at least MIN_PER_AREA). */
export const AREAS = [
  'pod-workers',
  'kubelet-sync',
  'status-manager',
  'runtime-manager',
  'volume-manager',
  'volume-plugins',
  'attach-detach',
] as const;
export type Area = (typeof AREAS)[number];

export const MIN_PER_AREA = 4;
export const MIN_NON_EQUIVALENT = 40;

/** The area of a file, or undefined for a file outside every area (refused by the validator). */
export function areaOf(file: string): Area | undefined {
  if (/^src\/kubelet\/(podWorkers[A-Za-z]*\.ts|killPodNow\.ts|legacy\/)/.test(file)) return 'pod-workers';
  if (file.startsWith('src/kubelet/status/')) return 'status-manager';
  if (file.startsWith('src/kubelet/kuberuntime/')) return 'runtime-manager';
  if (file.startsWith('src/kubelet/volumemanager/')) return 'volume-manager';
  if (file.startsWith('src/kubelet/')) return 'kubelet-sync';
  if (file.startsWith('src/volume/')) return 'volume-plugins';
  if (file.startsWith('src/cluster/attachdetach/')) return 'attach-detach';
  return undefined;
}

/**
 * The simulated ground truth: the storage, the runtime, the kernel, the checkers, the scenario and fuzz
 * machinery, the CLI and reports, the API server and the world's wiring. A mutant there would change
 * what is judged, not the code under judgement.
 */
export const FORBIDDEN = [
  'src/storage/',
  'src/runtime/',
  'src/sim/',
  'src/invariants/',
  'src/facts.ts',
  'src/elisionMasks.ts',
  'src/exitCodes.ts',
  'src/scenario/',
  'src/run/',
  'src/fuzz/',
  'src/cli/',
  'src/report/',
  'src/cluster/apiServer.ts',
  'src/cluster/world.ts',
  'src/cluster/scenarioActions.ts',
] as const;

export function isForbidden(file: string): boolean {
  return FORBIDDEN.some((f) => (f.endsWith('/') ? file.startsWith(f) : file === f));
}
