/**
 * Replay of an event log (`greenline replay`): every input fed back through a fresh engine on a memory store, each
 * transaction's digest compared with the recorded one. A queue id is derived from the store's queue count, so a
 * replayed queue may get another id than the recorded one: the replay's writes are compared after renaming its id to
 * the recorded one.
 */
import { Engine } from '../engine.js';
import type { QueueInput } from '../model/events.js';
import { createMemoryStore } from '../store/index.js';
import { RecordingStore, stateDigest } from './eventLogDigests.js';
import type { Changes, EventLog } from './eventLogFormat.js';
import { ReplayClock } from './scheduler.js';

/** The hex part of a queue id (`q_<hex>`): what run ids, entry ids and branches derived from it contain. */
function idPart(queueId: string): string {
  return queueId.replace(/^q_/, '');
}

export interface Divergence {
  /** The event at which the replay first differs; null: every event matched but the final state differs. */
  seq: number | null;
  at?: string;
  input?: QueueInput;
  reason: string;
  expected?: Changes;
  actual?: Changes;
}

export interface ReplayResult {
  /** Events replayed (up to and including a diverging one). */
  replayed: number;
  /** Events whose digest was compared. */
  checked: number;
  /** Whether the final state was compared (it is whenever every event replayed). */
  finalChecked: boolean;
  divergence: Divergence | null;
}

function describeChanges(changes: Changes | undefined): string {
  if (changes === undefined) return 'nothing';
  const parts: string[] = [];
  if (changes.queue !== undefined) parts.push(`queue ${changes.queue}`);
  for (const [number, state] of Object.entries(changes.prs ?? {})) parts.push(`#${number} ${state}`);
  for (const [id, status] of Object.entries(changes.runs ?? {})) parts.push(`${id} ${status}`);
  return parts.length === 0 ? 'no PR, run or queue record' : parts.join(', ');
}

/** What differs between two summaries, or '' when they agree. */
export function changesDiff(expected: Changes | undefined, actual: Changes | undefined): string {
  const differences: string[] = [];
  if (expected?.queue !== actual?.queue)
    differences.push(
      `queue: recorded ${expected?.queue ?? '(not written)'}, replayed ${actual?.queue ?? '(not written)'}`,
    );
  for (const [label, pick] of [
    ['#', (changes: Changes | undefined) => changes?.prs],
    ['', (changes: Changes | undefined) => changes?.runs],
  ] as const) {
    const recorded = pick(expected) ?? {};
    const replayed = pick(actual) ?? {};
    for (const id of [...new Set([...Object.keys(recorded), ...Object.keys(replayed)])].sort()) {
      if (recorded[id] !== replayed[id])
        differences.push(
          `${label}${id}: recorded ${recorded[id] ?? '(not written)'}, replayed ${replayed[id] ?? '(not written)'}`,
        );
    }
  }
  return differences.join('; ');
}

/**
 * Feeds a log through a fresh engine (in memory, effects held, timers not armed: the log holds their outcomes) and
 * compares each event's writes with the recorded digest, then the final state. Stops at the first divergence.
 */
export function replayEventLog(log: EventLog): ReplayResult {
  const { header, entries } = log;
  const first = entries[0];
  const result: ReplayResult = { replayed: 0, checked: 0, finalChecked: false, divergence: null };
  if (first === undefined) {
    result.divergence = { seq: null, reason: 'the log holds no event' };
    return result;
  }
  if (header.startsAt !== undefined) {
    const { seq, before } = header.startsAt;
    result.divergence = {
      seq: null,
      reason: `the log was cut by retention: its events before ${before} (below event ${seq}) are deleted but for the settings changes, so it cannot be replayed from the queue's creation; only whole logs replay (keep them longer with GREENLINE_RETAIN_EVENTS_DAYS, or export them before they go)`,
    };
    return result;
  }
  if (first.input.type !== 'created') {
    result.divergence = {
      seq: first.seq,
      at: first.at,
      input: first.input,
      reason: `the log starts with ${first.input.type}, not created: it is not a whole queue's log`,
    };
    return result;
  }
  const clock = new ReplayClock(Date.parse(first.at));
  const store = new RecordingStore(createMemoryStore());
  const failures: unknown[] = [];
  const engine = new Engine(store, {
    scheduler: clock,
    holdEffects: true,
    onError: (_message, error) => failures.push(error),
  });
  let queueId = '';
  /** Recorded inputs name runs by the recorded queue id; the replayed queue may have another. */
  let translate = (input: QueueInput): QueueInput => input;
  for (const [index, entry] of entries.entries()) {
    clock.set(Date.parse(entry.at));
    result.replayed++;
    const diverge = (reason: string, actual?: Changes): ReplayResult => {
      result.divergence = {
        seq: entry.seq,
        at: entry.at,
        input: entry.input,
        reason,
        ...(entry.changes === undefined ? {} : { expected: entry.changes }),
        ...(actual === undefined ? {} : { actual }),
      };
      return result;
    };
    if (entry.seq !== index) return diverge(`expected event ${index} here, the log has event ${entry.seq}`);
    try {
      if (entry.input.type === 'created') {
        if (index !== 0) return diverge('a second created event');
        queueId = engine.createQueue(header.queue, entry.input.patch, entry.input.by, entry.input.policy ?? null).id;
        const replayed = idPart(queueId);
        const recorded = idPart(header.queueId);
        if (replayed !== recorded) {
          store.rename = (text) => text.split(replayed).join(recorded);
          translate = (input) => JSON.parse(JSON.stringify(input).split(recorded).join(replayed)) as QueueInput;
        }
      } else if (entry.input.type === 'targetsSet') {
        if (entry.targets === undefined)
          return diverge('the targets of this upload are not in the log (the store no longer held them)');
        engine.setImpactedTargets(header.queue, { number: entry.input.number, sha: entry.input.sha }, entry.targets);
      } else {
        engine.replayInput(queueId, translate(entry.input));
      }
    } catch (error) {
      return diverge(`the engine refused the event: ${(error as Error).message}`);
    }
    if (failures.length > 0) return diverge(`the engine failed: ${String(failures[0])}`);
    const replayed = store.recorded(queueId, entry.seq);
    if (replayed === undefined) return diverge('the engine logged no event for it');
    if (entry.digest !== undefined) {
      result.checked++;
      if (replayed.digest !== entry.digest) {
        const what = changesDiff(entry.changes, replayed.changes);
        return diverge(
          what === ''
            ? `its transaction wrote something else than recorded (recorded: ${describeChanges(entry.changes)}; replayed: ${describeChanges(replayed.changes)})`
            : `its transaction differs: ${what}`,
          replayed.changes,
        );
      }
    }
  }
  result.finalChecked = true;
  const rename = store.rename;
  if (stateDigest(store, queueId, rename) !== header.finalDigest) {
    result.divergence = {
      seq: null,
      reason: 'every event replayed, but the final state of the queue differs from the recorded one',
    };
  }
  engine.stop();
  return result;
}
