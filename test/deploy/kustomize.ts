// Renders the kustomizations of deploy/ as `kubectl apply -k` would, for the manifest test: only what they
// use (resources: files and folders, images, JSON 6902 patches with a target), and it throws on anything
// else, so a kustomization feature it does not know cannot slip past the test unrendered.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parse, parseAllDocuments } from 'yaml';

export type KubeObject = Record<string, unknown> & { apiVersion: string; kind: string };
type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function only(where: string, value: Json, keys: readonly string[]): void {
  for (const k of Object.keys(value))
    if (!keys.includes(k)) throw new Error(`${where}: "${k}" is not rendered by this test's kustomize`);
}

/** Every YAML document of a manifest file. */
export function loadManifest(file: string): KubeObject[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((d, i) => {
    if (d.errors.length > 0) throw new Error(`${file}: document ${i}: ${d.errors[0]?.message}`);
    const o: unknown = d.toJS();
    if (!isObject(o) || typeof o['apiVersion'] !== 'string' || typeof o['kind'] !== 'string')
      throw new Error(`${file}: document ${i} is not a Kubernetes object`);
    return o as KubeObject;
  });
}

/** RFC 6901 */
function pointer(path: string): string[] {
  if (!path.startsWith('/')) throw new Error(`bad JSON pointer "${path}"`);
  return path
    .slice(1)
    .split('/')
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** RFC 6902 add, replace, remove and test on `doc`, in place. */
function applyOp(doc: Json, op: Json, where: string): void {
  only(where, op, ['op', 'path', 'value']);
  const steps = pointer(String(op['path']));
  const last = steps.pop() ?? '';
  let parent: unknown = doc;
  for (const s of steps) {
    parent = Array.isArray(parent) ? parent[Number(s)] : isObject(parent) ? parent[s] : undefined;
    if (parent === undefined) throw new Error(`${where}: ${String(op['path'])}: no such path`);
  }
  const value = structuredClone(op['value']);
  if (Array.isArray(parent)) {
    const i = last === '-' ? parent.length : Number(last);
    if (!Number.isInteger(i) || i < 0 || i > parent.length) throw new Error(`${where}: bad index ${last}`);
    const exists = i < parent.length;
    if (op['op'] === 'add') parent.splice(i, 0, value);
    else if (op['op'] === 'replace' && exists) parent[i] = value;
    else if (op['op'] === 'remove' && exists) parent.splice(i, 1);
    else if (op['op'] === 'test' && exists && isDeepStrictEqual(parent[i], value)) return;
    else throw new Error(`${where}: cannot ${String(op['op'])} ${String(op['path'])}`);
  } else if (isObject(parent)) {
    const exists = last in parent;
    if (op['op'] === 'add' || (op['op'] === 'replace' && exists)) parent[last] = value;
    else if (op['op'] === 'remove' && exists) delete parent[last];
    else if (op['op'] === 'test' && exists && isDeepStrictEqual(parent[last], value)) return;
    else throw new Error(`${where}: cannot ${String(op['op'])} ${String(op['path'])}`);
  } else throw new Error(`${where}: ${String(op['path'])}: parent is not a container`);
}

function matches(o: KubeObject, target: Json): boolean {
  const [group, version] = o.apiVersion.includes('/') ? o.apiVersion.split('/') : ['', o.apiVersion];
  const meta = isObject(o['metadata']) ? o['metadata'] : {};
  return (
    (target['group'] === undefined || target['group'] === group) &&
    (target['version'] === undefined || target['version'] === version) &&
    (target['kind'] === undefined || target['kind'] === o.kind) &&
    (target['name'] === undefined || target['name'] === meta['name'])
  );
}

/** The containers of a Pod template (a Job's), where kustomize's `images` applies. */
function containersOf(o: KubeObject): Json[] {
  const spec = isObject(o['spec']) ? o['spec'] : {};
  const template = isObject(spec['template']) ? spec['template'] : {};
  const pod = isObject(template['spec']) ? template['spec'] : {};
  return ['containers', 'initContainers'].flatMap((k) =>
    Array.isArray(pod[k]) ? (pod[k] as unknown[]).filter(isObject) : [],
  );
}

/** `name[:tag][@digest]` split the way kustomize's image transformer matches names. */
function splitImage(image: string): { name: string; tag: string | undefined } {
  const at = image.indexOf('@');
  const base = at === -1 ? image : image.slice(0, at);
  const colon = base.lastIndexOf(':');
  return colon > base.lastIndexOf('/')
    ? { name: base.slice(0, colon), tag: base.slice(colon + 1) }
    : { name: base, tag: undefined };
}

/** The objects `kubectl kustomize dir` prints. */
export function renderKustomization(dir: string): KubeObject[] {
  const file = join(dir, 'kustomization.yaml');
  const k: unknown = parse(readFileSync(file, 'utf8'));
  if (!isObject(k)) throw new Error(`${file}: not a mapping`);
  only(file, k, ['apiVersion', 'kind', 'resources', 'images', 'patches']);
  if (k['kind'] !== 'Kustomization') throw new Error(`${file}: kind is not Kustomization`);

  const objects = ((k['resources'] ?? []) as string[]).flatMap((r) => {
    const path = join(dir, r);
    return statSync(path).isDirectory() ? renderKustomization(path) : loadManifest(path);
  });

  for (const [i, p] of ((k['patches'] ?? []) as unknown[]).entries()) {
    const where = `${file}: patches[${i}]`;
    if (!isObject(p) || !isObject(p['target'])) throw new Error(`${where}: a patch needs a target here`);
    only(where, p, ['target', 'patch', 'path']);
    only(where, p['target'], ['group', 'version', 'kind', 'name']);
    const text = typeof p['path'] === 'string' ? readFileSync(join(dir, p['path']), 'utf8') : p['patch'];
    const ops: unknown = parse(String(text));
    if (!Array.isArray(ops))
      throw new Error(`${where}: only JSON 6902 patches (a list of ops) are rendered here`);
    const targets = objects.filter((o) => matches(o, p['target'] as Json));
    if (targets.length === 0) throw new Error(`${where}: the target matches nothing`);
    for (const o of targets) for (const op of ops) applyOp(o, op as Json, where);
  }

  for (const [i, img] of ((k['images'] ?? []) as unknown[]).entries()) {
    const where = `${file}: images[${i}]`;
    if (!isObject(img)) throw new Error(`${where}: not a mapping`);
    only(where, img, ['name', 'newName', 'newTag', 'digest']);
    for (const c of objects.flatMap(containersOf)) {
      const { name, tag } = splitImage(String(c['image']));
      if (name !== img['name']) continue;
      const newName = String(img['newName'] ?? name);
      c['image'] =
        img['digest'] !== undefined
          ? `${newName}@${String(img['digest'])}`
          : `${newName}${img['newTag'] !== undefined ? `:${String(img['newTag'])}` : tag === undefined ? '' : `:${tag}`}`;
    }
  }
  return objects;
}
