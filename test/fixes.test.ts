// The fix registry: release presets, labels, the --kubelet flag, and claims that name a kubelet.
import { describe, expect, it } from 'vitest';
import { fixesOption } from '../src/cli/options.js';
import { FIX_IDS, FIX_TABLE, Fixes, fixApplies, KUBELET_NAMES, RELEASE_PRESETS } from '../src/fixes.js';
import { claimFixesOf, fixFlags } from '../src/fuzz/campaign.js';
import { InputError } from '../src/scenario/errors.js';
import { parseScenarioText, scenarioToYaml } from '../src/scenario/load.js';
import { fixesOfClaim } from '../src/scenario/types.js';

function loadError(text: string): string {
  try {
    parseScenarioText(text, 'c.yaml');
  } catch (err) {
    if (err instanceof InputError) return err.message;
    throw err;
  }
  throw new Error('loaded without error');
}

const head = 'name: c\ncluster:\n  nodes: [node-a]\ntimeline: []\nclaims:\n';

describe('release presets', () => {
  it('every switch names its PRs, its first release and a state per preset', () => {
    for (const id of FIX_IDS) {
      const d = FIX_TABLE[id];
      expect(d.prs.length).toBeGreaterThan(0);
      expect(d.summary.length).toBeGreaterThan(10);
      expect(Object.keys(d.presets)).toEqual([...RELEASE_PRESETS]);
    }
  });

  it('a switch that is on in a release stays on in every later one where it applies', () => {
    for (const id of FIX_IDS) {
      const states = RELEASE_PRESETS.filter((p) => fixApplies(id, p)).map((p) => FIX_TABLE[id].presets[p]);
      expect(states.indexOf(true) === -1 || states.slice(states.indexOf(true)).every(Boolean)).toBe(true);
    }
  });

  it('1.20 runs the pre-#102344 pod worker; 1.23 the new one with a force detach from a healthy node', () => {
    expect(Fixes.of('1.20').on('pod-worker-lifecycle')).toBe(false);
    expect(Fixes.of('1.22').on('pod-worker-lifecycle')).toBe(true);
    expect(Fixes.of('1.23').on('no-force-detach-healthy-node')).toBe(false);
    expect(Fixes.of('1.25').on('no-force-detach-healthy-node')).toBe(true);
  });

  it('1.24 to 1.31: the 1.24 picks (#111636, #114168, #114733), the 1.27 pod worker changes, then every switch', () => {
    for (const id of [
      'reconstruct-every-pod-of-volume',
      'no-force-detach-healthy-node',
      'dsw-terminating-pod-on-restart',
    ] as const) {
      expect(Fixes.of('1.23').on(id), id).toBe(false);
      expect(Fixes.of('1.24').on(id), id).toBe(true);
    }
    // #113145 (1.27, no picks; its orphan half and its pendingUpdate rework), #117019 (1.28, picked to
    // 1.27.2), #115331's status manager (1.27, no picks) and #118497 (1.28, picked to 1.27.4): none of
    // 1.24 to 1.26 has them.
    for (const id of [
      'orphan-pod-worker-terminates',
      'pod-worker-pending-update',
      'terminal-pod-first-sight-synced',
      'status-deletes-finished-pods',
      'rejected-pod-deletion-after-restart',
    ] as const) {
      expect(Fixes.of('1.26').on(id), id).toBe(false);
      expect(Fixes.of('1.27').on(id), id).toBe(true);
    }
    // #126343 (1.32), picked to 1.31.1, 1.30.5, 1.29.9 and 1.28.14; none to 1.27.
    expect(Fixes.of('1.27').on('terminal-pod-not-readmitted')).toBe(false);
    expect(Fixes.of('1.28').on('terminal-pod-not-readmitted')).toBe(true);
    // #124063 (1.31, no picks): the eviction manager's immediate grace.
    expect(Fixes.of('1.30').on('immediate-eviction-grace')).toBe(false);
    expect(Fixes.of('1.31').on('immediate-eviction-grace')).toBe(true);
    // #115835 and #116690 (1.28, no picks): the preStop hook within the override; housekeeping picking
    // the pods to restart after SyncKnownPods.
    // #116408 (1.28.0, no picks): fitsRequest skips a resource the pod requests none of.
    expect(Fixes.of('1.27').on('zero-request-fits')).toBe(false);
    expect(Fixes.of('1.28').on('zero-request-fits')).toBe(true);
    // #104817 (1.23.0), picked to 1.22.5: every preset with the #102344 pod worker has it.
    expect(Fixes.of('1.22').on('admission-rejected-pod-inactive')).toBe(true);
    expect(Fixes.of('1.21').on('admission-rejected-pod-inactive')).toBe(false);
    for (const id of ['prestop-counts-against-grace', 'housekeeping-restart-same-round'] as const) {
      expect(Fixes.of('1.27').on(id), id).toBe(false);
      expect(Fixes.of('1.28').on(id), id).toBe(true);
    }
    // #122211 (1.30), picked to 1.29.1, 1.28, 1.27 and 1.26; none to 1.25 or earlier.
    expect(Fixes.of('1.25').on('reconstructed-device-stays-uncertain')).toBe(false);
    expect(Fixes.of('1.26').on('reconstructed-device-stays-uncertain')).toBe(true);
    expect(Fixes.of('1.24').equals(Fixes.of('1.25'))).toBe(true);
    // #120595 (1.29), picked to 1.28.3, 1.27 and 1.26; none to 1.25 or earlier.
    expect(Fixes.of('1.25').on('detach-error-uncertain')).toBe(false);
    expect(Fixes.of('1.26').on('detach-error-uncertain')).toBe(true);
    expect(
      Fixes.of('1.25').equals(
        Fixes.of('1.26')
          .with('reconstructed-device-stays-uncertain', false)
          .with('detach-error-uncertain', false),
      ),
    ).toBe(true);
    // #125014 (1.31, no picks): volumesNeedReportedInUse removed.
    expect(Fixes.of('1.30').on('no-reconstructed-reported-in-use')).toBe(false);
    expect(Fixes.of('1.31').on('no-reconstructed-reported-in-use')).toBe(true);
    // #130335 (1.33.0), picked to 1.30.12 and 1.31.8 (#130686, #130685); none earlier.
    expect(Fixes.of('1.29').on('dsw-terminating-pvc-protected')).toBe(false);
    expect(Fixes.of('1.30').on('dsw-terminating-pvc-protected')).toBe(true);
    expect(Fixes.of('1.28').equals(Fixes.of('1.29'))).toBe(true);
    expect(Fixes.of('1.29').equals(Fixes.of('1.30').with('dsw-terminating-pvc-protected', false))).toBe(true);
    expect(Fixes.of('1.26').equals(Fixes.all())).toBe(false);
    expect(
      Fixes.of('1.30').equals(
        Fixes.all().with('immediate-eviction-grace', false).with('no-reconstructed-reported-in-use', false),
      ),
    ).toBe(true);
    // NewVolumeManagerReconstruction: on by default in 1.27.0, off again from 1.27.2 (#117752), on from 1.28.
    expect(
      Fixes.of('1.27').equals(
        Fixes.all()
          .with('new-volume-reconstruction', false)
          .with('immediate-eviction-grace', false)
          .with('prestop-counts-against-grace', false)
          .with('housekeeping-restart-same-round', false)
          .with('dsw-terminating-pvc-protected', false)
          .with('terminal-pod-not-readmitted', false)
          .with('no-reconstructed-reported-in-use', false)
          .with('zero-request-fits', false),
      ),
    ).toBe(true);
    for (const k of ['1.24', '1.26', '1.27', '1.28', '1.29', '1.30', '1.31'] as const) {
      if (k === '1.31') expect(Fixes.of(k).equals(Fixes.all()), k).toBe(true);
      // Named as asked, not as an equal set (`all`, or another release's).
      expect(fixesOption(k, undefined).label()).toBe(k);
    }
  });

  it('a claim may name 1.30 unquoted (YAML reads the number 1.3)', () => {
    const s = parseScenarioText(`${head}  - kubelet: 1.30\n    violations: []\n`, 'c.yaml');
    expect(s.claims[0]?.fixes.kubelet).toBe('1.30');
  });

  it('--kubelet takes a preset and --fix applies after it', () => {
    const f = fixesOption('1.23', ['no-force-detach-healthy-node=on', 'block-metrics=off']);
    expect(f.on('no-force-detach-healthy-node')).toBe(true);
    expect(f.on('block-metrics')).toBe(false);
    expect(f.on('pod-worker-lifecycle')).toBe(true);
    expect(() => fixesOption('1.32', undefined)).toThrow(
      /--kubelet: expected fixed \(also all\), legacy \(also none\) or a modelled release \(1.20, /,
    );
  });
});

describe('labels and replay flags', () => {
  it('names the nearest kubelet and the switches that differ from it', () => {
    expect(Fixes.all().label()).toBe('all');
    expect(Fixes.none().label()).toBe('none');
    expect(Fixes.all().with('fc-unmount-retry', false).label()).toBe('-fc-unmount-retry');
    expect(Fixes.none().with('block-metrics', true).label()).toBe('+block-metrics');
    expect(Fixes.of('1.23').label()).toBe('1.23');
    expect(Fixes.of('1.21').with('block-metrics', true).label()).toBe('1.21,+block-metrics');
  });

  it('prints the kubelet asked for, also where two releases ship the same switches (1.22 and 1.23)', () => {
    expect(Fixes.of('1.22').equals(Fixes.of('1.23'))).toBe(true);
    const printed = { fixed: 'all', legacy: 'none' } as Record<string, string>;
    for (const kubelet of KUBELET_NAMES) {
      const fixes = fixesOption(kubelet, undefined);
      expect(fixes.label(), kubelet).toBe(printed[kubelet] ?? kubelet);
      expect(fixFlags(fixes), kubelet).toEqual(kubelet === 'fixed' ? [] : [`--kubelet ${kubelet}`]);
      expect(claimFixesOf(fixes).kubelet, kubelet).toBe(kubelet);
    }
    // The row of docs/cli.md's table that could not print while 1.23 won every tie.
    const off = fixesOption('1.22', ['static-pod-start-exclusion=off']);
    expect(off.label()).toBe('1.22,-static-pod-start-exclusion');
    expect(fixFlags(off)).toEqual(['--kubelet 1.22', '--fix static-pod-start-exclusion=off']);
    // The name survives a recording copy (a run's) and further toggles.
    expect(off.recording(new Map(), () => 0).label()).toBe('1.22,-static-pod-start-exclusion');
    // Fewer differences still win over the name asked for (1.22 with the three 1.24 picks is the set of
    // 1.24 and 1.25, named after the newer; with the picks of #122211 and #120595 too, 1.26's; with the 1.27 pod worker
    // switches too, 1.27's set; with the new reconstruction and #115835 of 1.28 too, that of 1.28 and
    // 1.29; with #130335 too, 1.30's; with 1.31's #124063 and #125014 every switch is on: all),
    // and a set nobody named names the newer of two equal releases.
    const picks = [
      'no-force-detach-healthy-node=on',
      'reconstruct-every-pod-of-volume=on',
      'dsw-terminating-pod-on-restart=on',
    ];
    expect(fixesOption('1.22', picks).label()).toBe('1.25');
    const picks26 = [...picks, 'reconstructed-device-stays-uncertain=on', 'detach-error-uncertain=on'];
    expect(fixesOption('1.22', picks26).label()).toBe('1.26');
    const rework = [
      'orphan-pod-worker-terminates=on',
      'terminal-pod-first-sight-synced=on',
      'terminated-pod-waits-for-volume-cleanup=on',
      'status-deletes-finished-pods=on',
      'rejected-pod-deletion-after-restart=on',
      'pod-worker-pending-update=on',
    ];
    expect(fixesOption('1.22', [...picks26, ...rework]).label()).toBe('1.27');
    const recon = [
      ...picks26,
      ...rework,
      'new-volume-reconstruction=on',
      'prestop-counts-against-grace=on',
      'terminal-pod-not-readmitted=on',
      'housekeeping-restart-same-round=on',
      'zero-request-fits=on',
    ];
    expect(fixesOption('1.22', recon).label()).toBe('1.29');
    const pvc = [...recon, 'dsw-terminating-pvc-protected=on'];
    expect(fixesOption('1.22', pvc).label()).toBe('1.30');
    const grace = [...pvc, 'immediate-eviction-grace=on'];
    expect(fixesOption('1.22', grace).label()).toBe('-no-reconstructed-reported-in-use');
    expect(fixesOption('1.22', [...grace, 'no-reconstructed-reported-in-use=on']).label()).toBe('all');
    expect(new Fixes(Fixes.of('1.22').ids()).label()).toBe('1.23');
  });

  it('the replay flags of any fix set select exactly that set', () => {
    for (const kubelet of KUBELET_NAMES) {
      for (const id of FIX_IDS) {
        const fixes = Fixes.of(kubelet).with(id, !Fixes.of(kubelet).on(id));
        const flags = fixFlags(fixes).join(' ');
        const k = /--kubelet (\S+)/.exec(flags)?.[1];
        const toggles = [...flags.matchAll(/--fix (\S+)/g)].map((m) => m[1]);
        expect(fixesOption(k, toggles).equals(fixes)).toBe(true);
        expect(fixesOfClaim(claimFixesOf(fixes)).equals(fixes)).toBe(true);
      }
    }
  });
});

describe('claims that name a kubelet', () => {
  it('reads `kubelet: 1.20` (a YAML number) as the 1.20 preset, with toggles both ways', () => {
    const s = parseScenarioText(
      `${head}  - kubelet: 1.20\n    violations: []\n  - kubelet: '1.23'\n    fixes: {off: [block-metrics], on: [no-force-detach-healthy-node]}\n    violations: []\n`,
      'c.yaml',
    );
    expect(s.claims.map((c) => c.fixes)).toEqual([
      { kubelet: '1.20', off: [], on: [] },
      { kubelet: '1.23', off: ['block-metrics'], on: ['no-force-detach-healthy-node'] },
    ]);
    const f = fixesOfClaim(s.claims[1]?.fixes ?? { kubelet: 'fixed', off: [], on: [] });
    expect(f.on('block-metrics')).toBe(false);
    expect(f.on('no-force-detach-healthy-node')).toBe(true);
    // Written back and read again: the same claims.
    expect(parseScenarioText(scenarioToYaml(s), 'c.yaml').claims.map((c) => c.fixes)).toEqual(
      s.claims.map((c) => c.fixes),
    );
  });

  it('rejects an unknown kubelet, fixes: all beside a kubelet, and a claim with neither', () => {
    expect(loadError(`${head}  - kubelet: 1.19\n    violations: []\n`)).toBe(
      `c.yaml:6:14: claims[0].kubelet: expected fixed, legacy or a modelled release (${RELEASE_PRESETS.join(', ')}), got 1.19 (not modelled: \`npx podrace list fixes\` shows what each modelled release ships)`,
    );
    expect(loadError(`${head}  - kubelet: legacyy\n    violations: []\n`)).toContain(
      '(did you mean "legacy"?)',
    );
    expect(loadError(`${head}  - kubelet: '1.23'\n    fixes: all\n    violations: []\n`)).toContain(
      'claims[0].fixes: fixes: all together with kubelet',
    );
    expect(loadError(`${head}  - violations: []\n`)).toContain(
      'claims[0].fixes: missing; expected fixes or kubelet',
    );
    expect(
      loadError(`${head}  - fixes: {off: [block-metrics], on: [fc-unmount-retry]}\n    violations: []\n`),
    ).toContain('both off and on');
  });
});
