// The pod events of an imported log (infer.ts): the API's ADD, DELETE and REMOVE of pods, the kubelet's
// kills of their containers and the runtime refusing them, PLEG's starts and deaths, and evictions. Pure.
import { InputError } from '../scenario/errors.js';
import { ownExitContainer } from './containerExits.js';
import type { LogEvent, PodRef } from './events.js';
import { readEviction } from './evictionGrace.js';
import { label } from './hints.js';
import type { ImportState, Reading } from './importState.js';
import { podOfContainerId, stopFaultOf } from './killFailures.js';
import type { LogRecord } from './logLines.js';
import { podOfHook, readPreStopHook, readPreStopKill } from './preStopHooks.js';

type PodEvent = Extract<
  LogEvent,
  {
    kind:
      | 'podOp'
      | 'killContainer'
      | 'killContainerFailed'
      | 'containerFinished'
      | 'pleg'
      | 'evict'
      | 'preStopHook';
  }
>;

const at = (r: LogRecord) => `${r.file}:${r.lines[0]}`;
/** kuberuntime_container.go's minimumGracePeriodInSeconds. */
const MINIMUM_GRACE_PERIOD_S = 2;

/** How soon after a restart a kill of a listed pod reads as the list's deletion (its first sync). */
const RELISTED_KILL_WITHIN_MS = 60_000;

export function readPodEvent(s: ImportState, ev: PodEvent, { r, seq, t, node }: Reading): void {
  switch (ev.kind) {
    case 'podOp': {
      for (const ref of ev.pods) {
        const p = s.find(ref);
        const isStatic = ev.source === 'file' || ev.source === 'http';
        if (ev.op === 'ADD') {
          if (p?.alive) {
            if (ref.uid === '' || p.uid === '' || ref.uid === p.uid) continue; // a re-list after a restart
            if (!p.static)
              throw new InputError(
                `${at(r)}: pod ${ref.namespace}/${ref.name} is added with UID ${ref.uid} while UID ${p.uid} of that name was never deleted: no valid timeline has both`,
                { located: true },
              );
            p.alive = false;
            s.push(t, seq - 0.25, [r], () => ({ kind: 'deletePod', pod: p.name, gracePeriodS: null }), [
              'a new static pod of the name replaces the old one',
            ]);
          }
          const relist = s.restartedBefore.has(r.file) && r.pid === s.firstPid.get(r.file);
          s.create(ref, node?.name ?? s.namedNode('node-a'), isStatic, r, seq, relist);
        } else if (ev.op === 'DELETE' || (ev.op === 'REMOVE' && isStatic)) {
          const q = p ?? s.podFor(ref, r, seq, isStatic);
          if (!q.alive) continue;
          if (q.deleting) {
            // podsDifferSemantically: the pod changed while deleting. A kill shorter than the first one
            // that follows shows a second deletion with that grace (kubectl delete --grace-period=N).
            if (ev.op === 'DELETE' && !q.static && q.killGrace !== null)
              q.redelete = { atMs: t, seq, record: r };
            continue;
          }
          q.deleting = true;
          q.goneAtMs ??= t;
          if (ev.op === 'REMOVE') q.alive = false;
          s.push(t, seq, [r], () => ({ kind: 'deletePod', pod: q.name, gracePeriodS: q.deleteGrace }));
        } else if (ev.op === 'REMOVE') {
          const q = p ?? s.podFor(ref, r, seq);
          if (!q.alive) continue;
          q.alive = false;
          q.goneAtMs ??= t;
          // The kubelet finalises a graceful deletion only once the containers are gone (the status
          // manager's canBeDeleted); a REMOVE while PLEG still reports one running is someone's force
          // deletion after the graceful one.
          if (q.deleting && (q.static || q.runningIds.size === 0)) continue;
          q.forcedAfterDelete = q.deleting;
          s.push(t, seq, [r], () => ({ kind: 'forceDeletePod', pod: q.name }), [
            q.deleting
              ? 'removed while its containers still ran, after a graceful DELETE: a force deletion'
              : 'removed without a graceful DELETE first: a force deletion',
          ]);
        }
      }
      break;
    }
    case 'killContainer': {
      const p = s.podFor(ev.pod, r, seq);
      const c = label(ev.container, '');
      if (c !== '' && !p.containers.includes(c)) p.containers.push(c);
      if (c !== '' && ev.containerId !== '') p.idNames.set(ev.containerId, c);
      if (ev.containerId !== '') p.killedIds.add(ev.containerId);
      if (readPreStopKill(p, ev.containerId, ev.container, ev.gracePeriodS, t, r)) p.createSources.push(r);
      // A pod deleted while the kubelet was down is killed by housekeeping as an orphan, with a 1 s
      // override from 1.22 on (HandlePodCleanups): not the pod's grace. (Release-1.20's kill reads the
      // spec's grace off the container's labels, which the branches below take.)
      if (p.goneWhileDown && ev.gracePeriodS === 1) break;
      const relisted = p.relisted;
      p.relisted = null;
      // Within a minute of the start: the list's pod worker kills it at its first sync.
      const soon = relisted !== null && t <= relisted.startedAtMs + RELISTED_KILL_WITHIN_MS;
      if (relisted !== null && soon && p.alive && !p.deleting && !p.evicted && node?.shutdown !== true) {
        // Killed by the restarted kubelet with nothing before it: its list showed the pod with a
        // deletionTimestamp (config.go merges a pod it first sees as an ADD, and logs no DELETE).
        p.deleting = true;
        p.goneAtMs ??= relisted.atMs;
        const q = p;
        s.push(
          relisted.atMs,
          relisted.seq,
          [r],
          () => ({ kind: 'deletePod', pod: q.name, gracePeriodS: q.deleteGrace }),
          [
            'guess: deleted while the kubelet was down (the restarted kubelet listed it, then killed it), half way through',
          ],
        );
      }
      const again = p.redelete;
      if (again !== null && p.alive && p.killGrace !== null && ev.gracePeriodS < p.killGrace) {
        p.redelete = null;
        const graceS = ev.gracePeriodS;
        const q = p;
        s.push(
          again.atMs,
          again.seq,
          [again.record, r],
          () => ({ kind: 'deletePod', pod: q.name, gracePeriodS: graceS }),
          [
            `a second deletion while the pod terminated: the kill after it had ${graceS}s, the first ${p.killGrace}s`,
          ],
        );
        break;
      }
      if (p.evicted && p.evictGrace === null) p.evictGrace = ev.gracePeriodS;
      else if (p.forcedAfterDelete && p.deleteGrace === null && ev.gracePeriodS > (p.killGrace ?? 0)) {
        // The force deletion's 0 fell back to the spec's grace (#115819): the first kill's was the
        // graceful deletion's own.
        p.deleteGrace = p.killGrace;
        p.killGrace = ev.gracePeriodS;
      } else if (p.deleting || !p.alive) {
        // A force deletion's 0 becomes killContainer's 2 s minimum before #102344; a later kill without
        // the API pod (the podKiller's) restores the spec's grace from the container's label.
        const forced = !p.deleting && p.killGrace === MINIMUM_GRACE_PERIOD_S;
        if (p.killGrace === null || (forced && ev.gracePeriodS > MINIMUM_GRACE_PERIOD_S))
          p.killGrace = ev.gracePeriodS;
      }
      break;
    }
    case 'killContainerFailed': {
      const p =
        ev.pod !== null ? s.podFor(ev.pod, r, seq) : podOfContainerId(s.pods.values(), ev.containerId);
      if (p === undefined) {
        s.unused.push(r);
        s.used--;
        break;
      }
      const f = stopFaultOf(p, ev.container, ev.containerId, ev.error);
      const c = label(ev.container, '');
      if (c !== '' && !p.containers.includes(c)) p.containers.push(c);
      // Armed when the pod's deletion came (the kill it failed followed it), else at the failure itself.
      const fresh = !s.openFaults.has(f.key);
      s.mergeFault(f.key, r, p.goneAtMs ?? t, -0.5, f.make);
      if (fresh)
        s.entries[s.entries.length - 1]?.notes.push(
          'guess: the runtime failed from the kill that followed the deletion (StopContainer errors in a row)',
        );
      break;
    }
    case 'containerFinished':
      s.exitCodes.set(ev.containerId, ev.exitCode);
      break;
    case 'preStopHook': {
      const p = ev.pod !== null ? s.podFor(ev.pod, r, seq) : podOfHook(s.pods.values(), ev);
      if (p === undefined) {
        s.unused.push(r);
        s.used--;
        break;
      }
      readPreStopHook(p, ev, t, r);
      p.createSources.push(r);
      break;
    }
    case 'pleg': {
      replacedWhileDown(s, ev.pod, r, seq);
      const p = s.podFor(ev.pod, r, seq);
      if (ev.event === 'ContainerStarted') {
        p.startsMs.push(t);
        if (ev.container !== '') p.killedIds.delete(ev.container);
      }
      if (ev.event === 'ContainerStarted' && ev.container !== '' && !p.startedIds.has(ev.container))
        p.startedIds.set(ev.container, t);
      if (ev.event === 'ContainerDied') {
        s.closeFaults(`stopContainer/${p.name}/`);
        p.runningIds.delete(ev.container);
      } else if (ev.container !== '') p.runningIds.add(ev.container);
      const exitCode = s.exitCodes.get(ev.container);
      if (ev.event === 'ContainerDied' && exitCode !== undefined && p.alive) {
        s.exitCodes.delete(ev.container);
        const container = ownExitContainer(p, ev.container);
        if (container === null) break;
        p.exits.push({ atMs: t, container, exitCode });
        const name = p.name;
        s.push(t, seq, [r], () => ({ kind: 'crashContainer', pod: name, container, exitCode }), [
          'guess: the container exited when PLEG saw it die (up to its 1 s relist later)',
        ]);
      }
      break;
    }
    case 'evict': {
      const p = s.podFor(ev.pod, r, seq);
      p.evicted = true;
      p.goneAtMs ??= t;
      const notes: string[] = [];
      s.push(
        t,
        seq,
        [r],
        () => {
          const read = readEviction(s.release?.value ?? null, p.evictGrace);
          if (read.guess !== null && notes.length === 0) notes.push(`guess: ${read.guess}`);
          return { kind: 'evictPod', pod: p.name, gracePeriodS: read.overrideS };
        },
        notes,
      );
      break;
    }
  }
}

/**
 * Containers of a static pod under a UID not seen before, after a restart whose sources listed its name:
 * the manifest changed while the kubelet was down (structured ADDs name no UID; the file source lists the
 * new manifest, and housekeeping kills the old one's containers as an orphan). The old pod is removed half
 * way through the down time and the new one added when the kubelet started.
 */
function replacedWhileDown(s: ImportState, ref: PodRef, r: LogRecord, seq: number): void {
  if (ref.uid === '' || s.withUid(ref.uid) !== undefined) return;
  const old = s.named(ref, (p) => p.static && p.alive && p.relisted !== null && p.uid !== '');
  const relisted = old?.relisted;
  if (old === undefined || relisted === undefined || relisted === null) return;
  old.relisted = null;
  old.alive = false;
  old.goneWhileDown = true;
  old.goneAtMs ??= relisted.atMs;
  s.push(relisted.atMs, relisted.seq, [r], () => ({ kind: 'deletePod', pod: old.name, gracePeriodS: null }), [
    'guess: its manifest changed while the kubelet was down (containers of another UID after the restart), half way through',
  ]);
  s.create(ref, old.node, true, r, seq, false, { atMs: relisted.startedAtMs, seq: relisted.seq + 0.3 });
}
