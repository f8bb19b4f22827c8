// deploy/: the Job and its kustomizations are valid against the Kubernetes OpenAPI schema (validated by
// kubernetes-models, as rendered), the Job agrees with itself (N shards), with the image (user, working
// directory) and with the CLI (its arguments run), and a find or a bad flag is handled as documented.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Job } from 'kubernetes-models/batch/v1';
import { PersistentVolumeClaim } from 'kubernetes-models/v1';
import { afterAll, describe, expect, it } from 'vitest';
import { type KubeObject, loadManifest, renderKustomization } from './kustomize.js';

const root = join(import.meta.dirname, '..', '..');
const deploy = join(root, 'deploy');

/** Validates `o` against its kind's OpenAPI schema; throws the schema's complaint. */
function validate(o: KubeObject): void {
  const key = `${o.apiVersion} ${o.kind}`;
  if (key === 'batch/v1 Job') new Job(o as ConstructorParameters<typeof Job>[0]).validate();
  else if (key === 'v1 PersistentVolumeClaim')
    new PersistentVolumeClaim(o as ConstructorParameters<typeof PersistentVolumeClaim>[0]).validate();
  else throw new Error(`no schema wired for ${key}`);
}

interface Container {
  name: string;
  image: string;
  args: string[];
  command?: string[];
  volumeMounts: { name: string; mountPath: string }[];
}
interface Rule {
  action: string;
  onExitCodes?: { containerName?: string; operator: string; values: number[] };
  onPodConditions?: { type: string }[];
}
interface JobShape {
  spec: {
    completionMode: string;
    completions: number;
    parallelism: number;
    backoffLimitPerIndex?: number;
    maxFailedIndexes?: number;
    podFailurePolicy: { rules: Rule[] };
    template: {
      spec: {
        restartPolicy: string;
        securityContext: { runAsUser: number; runAsGroup: number };
        containers: Container[];
        volumes: { name: string }[];
      };
    };
  };
}

function theJob(objects: readonly KubeObject[]): JobShape {
  const jobs = objects.filter((o) => o.kind === 'Job');
  expect(jobs).toHaveLength(1);
  return jobs[0] as unknown as JobShape;
}

/** The first rule that takes a container exit code, as the Job controller picks it. */
function ruleForExit(job: JobShape, code: number): string {
  const rule = job.spec.podFailurePolicy.rules.find(
    (r) => r.onExitCodes?.operator === 'In' && r.onExitCodes.values.includes(code),
  );
  return rule?.action ?? 'Count';
}

const containerfile = readFileSync(join(deploy, 'Containerfile'), 'utf8');

const renders: [string, () => KubeObject[]][] = [
  ['deploy/job.yaml', () => loadManifest(join(deploy, 'job.yaml'))],
  ['kubectl kustomize deploy/', () => renderKustomization(deploy)],
  ['kubectl kustomize deploy/with-volume/', () => renderKustomization(join(deploy, 'with-volume'))],
];

describe('deploy/', () => {
  it.each(renders)('%s is valid against the Kubernetes OpenAPI schema', (_, render) => {
    const objects = render();
    expect(objects.length).toBeGreaterThan(0);
    for (const o of objects) validate(o);
  });

  it('the schema check is live: it rejects a Job with a wrong field', () => {
    const job = loadManifest(join(deploy, 'job.yaml'))[0] as KubeObject & JobShape;
    const bad = structuredClone(job);
    bad.spec.completionMode = 'indexed';
    expect(() => validate(bad)).toThrow(/completionMode must be equal to one of the allowed values/);
    const badRule = structuredClone(job);
    (badRule.spec.podFailurePolicy.rules[0] as Rule).action = 'Retry';
    expect(() => validate(badRule)).toThrow(/action must be equal to one of the allowed values/);
  });

  it.each(renders)(
    '%s: an Indexed Job of N shards, each index retried alone, a find not retried',
    (_, render) => {
      const job = theJob(render());
      const s = job.spec;
      const container = s.template.spec.containers[0] as Container;
      const shard = container.args[container.args.indexOf('--shard') + 1];
      expect(shard).toMatch(/^\/\d+$/);
      const n = Number(shard?.slice(1));
      expect(s.completionMode).toBe('Indexed');
      expect(s.completions).toBe(n);
      expect(s.parallelism).toBe(n);
      expect(container.args.slice(0, 2)).toEqual(['fuzz', '--json']);
      expect(s.backoffLimitPerIndex).toBeGreaterThanOrEqual(1);
      // A find must not stop the other shards.
      expect(s.maxFailedIndexes).toBeUndefined();
      expect(s.template.spec.restartPolicy).toBe('Never');
      for (const r of s.podFailurePolicy.rules)
        if (r.onExitCodes !== undefined) expect(r.onExitCodes.containerName).toBe(container.name);
      expect(ruleForExit(job, 1)).toBe('FailIndex'); // violations found: a result, deterministic
      expect(ruleForExit(job, 3)).toBe('FailIndex'); // a podrace bug: deterministic too
      expect(ruleForExit(job, 2)).toBe('FailJob'); // bad flags: every index fails alike
      expect(ruleForExit(job, 137)).toBe('Count'); // OOM-killed: retry this index
      const disruption = s.podFailurePolicy.rules.find((r) =>
        r.onPodConditions?.some((c) => c.type === 'DisruptionTarget'),
      );
      expect(disruption?.action).toBe('Ignore');
    },
  );

  it('the Job runs the image as its user, in its working directory, and the kustomization sets the image', () => {
    const user = /^USER (\d+):(\d+)$/m.exec(containerfile);
    const workdirs = [...containerfile.matchAll(/^WORKDIR (\S+)$/gm)].map((m) => m[1]);
    expect(containerfile).toMatch(/^RUN npm ci --omit=dev/m);
    expect(containerfile).toMatch(/^FROM \S*node:20-\S*slim$/m);
    expect(containerfile).toMatch(/^ENTRYPOINT \["podrace"\]$/m);
    for (const [, render] of renders) {
      const spec = theJob(render()).spec.template.spec;
      expect([spec.securityContext.runAsUser, spec.securityContext.runAsGroup]).toEqual([
        Number(user?.[1]),
        Number(user?.[2]),
      ]);
      expect((spec.containers[0] as Container).volumeMounts.map((m) => m.mountPath)).toContain(
        workdirs.at(-1),
      );
    }
    const base = theJob(loadManifest(join(deploy, 'job.yaml'))).spec.template.spec.containers[0];
    const rendered = theJob(renderKustomization(deploy)).spec.template.spec.containers[0];
    expect(base?.image).toBe('podrace:0.1.0');
    const images = (readFileSync(join(deploy, 'kustomization.yaml'), 'utf8').match(/newName: (\S+)/) ??
      [])[1];
    expect(rendered?.image).toBe(`${images}:0.1.0`);
    // The version tag is podrace's own: merge refuses shards of another version.
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    expect(rendered?.image.endsWith(`:${pkg.version}`)).toBe(true);
  });

  it('the volume variant keeps the exit code and writes every index its own file', () => {
    const job = theJob(renderKustomization(join(deploy, 'with-volume')));
    const c = job.spec.template.spec.containers[0] as Container;
    expect(c.command?.slice(0, 2)).toEqual(['bash', '-c']);
    expect(c.command?.[2]).toMatch(
      /^set -o pipefail; podrace "\$@" \| tee "\/results\/index-\$\{JOB_COMPLETION_INDEX\}\.jsonl"$/,
    );
    expect(c.args.slice(-2)).toEqual(['--out', '/results/failures']);
    expect(c.volumeMounts).toContainEqual({ name: 'results', mountPath: '/results' });
    expect(job.spec.template.spec.volumes.map((v) => v.name)).toContain('results');
  });
});

describe('the Job arguments, given to the built CLI', () => {
  const dir = mkdtempSync(join(tmpdir(), 'podrace-deploy-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each(renders)('%s: index 0 starts the campaign it names (stopped at once)', (_, render) => {
    const c = theJob(render()).spec.template.spec.containers[0] as Container;
    // The volume variant's --out is /results (a mount); here it writes nothing, as no case runs.
    const r = spawnSync(process.execPath, [join(root, 'dist', 'cli.js'), ...c.args, '--time-limit', '0s'], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, JOB_COMPLETION_INDEX: '0' },
    });
    expect(r.stderr).toBe('');
    // The arguments are accepted (not 2); no case ran in 0 s, and a campaign that checked nothing is 1.
    expect(r.status).toBe(1);
    const summary = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
    const n = theJob(render()).spec.completions;
    expect(summary).toMatchObject({ type: 'summary', shard: `1/${n}`, ran: 0, stoppedByTimeLimit: true });
    expect(summary['runs']).toBe(Number(c.args[c.args.indexOf('--runs') + 1]));
  });
});
