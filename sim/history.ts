/**
 * A queue's history, as fit.ts needs it: when each PR arrived and at what priority, what became of it, every run
 * (what it tested, on what, how it ended and how long it took), the impacted targets uploaded, and the queue's
 * current settings. Read from any store (a data folder, PostgreSQL, or an exported event log replayed into memory).
 */
import { Engine, type QueueKey } from '../engine/engine.js';
import type { QueueInput } from '../engine/model/events.js';
import type { QueueSettings } from '../engine/model/queues.js';
import type { EventLog } from '../engine/runtime/eventLog.js';
import { ReplayClock } from '../engine/runtime/scheduler.js';
import { createMemoryStore } from '../engine/store/index.js';
import type { Store } from '../engine/store/store.js';
import type { PullRequestState, TestRunStatus } from '../machines/vocabulary.js';
import type { QueueConfig } from './scenario.js';

export interface HistoryPr {
  number: number;
  /** ms since the epoch: its first submission. */
  arrivedAt: number;
  priority?: string;
  state: PullRequestState;
}

export interface HistoryRun {
  id: string;
  kind: 'main' | 'bisection';
  prs: number[];
  basePrs: number[];
  status: TestRunStatus;
  startedAt: number;
  /** Null while it runs. */
  endedAt: number | null;
}

export interface QueueHistory {
  key: QueueKey;
  settings: QueueSettings;
  /** The first and last event of the log (ms since the epoch). */
  from: number;
  to: number;
  prs: HistoryPr[];
  runs: HistoryRun[];
  /** The latest upload of each PR that has one. */
  targets: Map<number, string[] | 'ALL'>;
  /** Where the log starts, when retention cut it (arrivals before are unknown). */
  cutBefore?: number;
}

export class HistoryError extends Error {}

/** The history of the queue with this key in a store. */
export function historyOf(store: Store, key: QueueKey): QueueHistory {
  const indexKey = [
    key.org,
    key.repo.host.toLowerCase(),
    key.repo.owner.toLowerCase(),
    key.repo.name.toLowerCase(),
    key.branch,
  ];
  return store.read((tx) => {
    const queueId = tx.get('queueIndex', indexKey);
    const queue = queueId === undefined ? undefined : tx.get('queues', [queueId]);
    if (queueId === undefined || queue === undefined) {
      throw new HistoryError(
        `no queue for ${key.repo.host}/${key.repo.owner}/${key.repo.name} branch ${key.branch} in organization ${key.org}`,
      );
    }
    const arrivals = new Map<number, { at: number; priority?: string }>();
    let from = Infinity;
    let to = -Infinity;
    for (const { value: event } of tx.scan('events', { prefix: [queueId] })) {
      const at = Date.parse(event.at);
      from = Math.min(from, at);
      to = Math.max(to, at);
      const input = event.input;
      if (input.type === 'submitted' && !arrivals.has(input.number)) {
        arrivals.set(input.number, {
          at,
          ...(input.priority === undefined ? {} : { priority: String(input.priority) }),
        });
      }
    }
    const prs: HistoryPr[] = [];
    for (const [number, arrival] of arrivals) {
      const record = tx.get('pullRequests', [queueId, number]);
      prs.push({
        number,
        arrivedAt: arrival.at,
        ...(arrival.priority === undefined ? {} : { priority: arrival.priority }),
        state: record?.state ?? 'NOT_READY',
      });
    }
    const runs = [...tx.scan('testRuns', { prefix: [queueId] })].map(
      ({ value: run }): HistoryRun => ({
        id: run.id,
        kind: run.kind,
        prs: run.prs,
        basePrs: run.basePrs,
        status: run.status,
        startedAt: Date.parse(run.createdAt),
        endedAt: run.endedAt === null ? null : Date.parse(run.endedAt),
      }),
    );
    const targets = new Map<number, { at: string; targets: string[] | 'ALL' }>();
    for (const { key: recordKey, value } of tx.scan('impactedTargets', { prefix: [queueId] })) {
      const number = Number(recordKey[1]);
      const known = targets.get(number);
      if (known === undefined || known.at < value.uploadedAt)
        targets.set(number, { at: value.uploadedAt, targets: value.targets === 'ALL' ? 'ALL' : [...value.targets] });
    }
    return {
      key,
      settings: queue.settings,
      from: Number.isFinite(from) ? from : Date.parse(queue.createdAt),
      to: Number.isFinite(to) ? to : Date.parse(queue.createdAt),
      prs: prs.sort((a, b) => a.arrivedAt - b.arrivedAt || a.number - b.number),
      runs,
      targets: new Map([...targets].map(([number, upload]) => [number, upload.targets])),
      ...(queue.eventsFrom === undefined ? {} : { cutBefore: Date.parse(queue.eventsFrom.before) }),
    };
  });
}

/**
 * The history of an exported event log (`greenline events`, `greenline sim --out`): the log fed through a fresh
 * engine on a memory store, as `greenline replay` does (without comparing digests), then read like a store.
 */
export function historyOfLog(log: EventLog): QueueHistory {
  const { header, entries } = log;
  const first = entries[0];
  if (header.startsAt !== undefined)
    throw new HistoryError(
      'the log was cut by retention: only a whole log can be fitted (export it before its events go)',
    );
  if (first === undefined || first.input.type !== 'created')
    throw new HistoryError('the log does not start with the queue being created: it is not a whole queue log');
  const clock = new ReplayClock(Date.parse(first.at));
  const store = createMemoryStore();
  const failures: unknown[] = [];
  const engine = new Engine(store, {
    scheduler: clock,
    holdEffects: true,
    onError: (_message, error) => failures.push(error),
    sampleEstimates: false,
  });
  let translate = (input: QueueInput): QueueInput => input;
  let queueId = '';
  try {
    for (const entry of entries) {
      clock.set(Date.parse(entry.at));
      if (entry.input.type === 'created') {
        queueId = engine.createQueue(header.queue, entry.input.patch, entry.input.by).id;
        // Recorded inputs name runs by the recorded queue id; the replayed queue may have another.
        const replayed = queueId.replace(/^q_/, '');
        const recorded = header.queueId.replace(/^q_/, '');
        if (replayed !== recorded)
          translate = (input) => JSON.parse(JSON.stringify(input).split(recorded).join(replayed)) as QueueInput;
      } else if (entry.input.type === 'targetsSet') {
        if (entry.targets !== undefined)
          engine.setImpactedTargets(header.queue, { number: entry.input.number, sha: entry.input.sha }, entry.targets);
      } else {
        engine.replayInput(queueId, translate(entry.input));
      }
      if (failures.length > 0)
        throw new HistoryError(`the log does not replay at event ${entry.seq}: ${String(failures[0])}`);
    }
  } finally {
    engine.stop();
  }
  return historyOf(store, header.queue);
}

/** The queue's settings as a scenario configuration (the fields a scenario takes, defaults left out where it needs). */
export function configOf(name: string, settings: QueueSettings): QueueConfig {
  const config: QueueConfig = {
    name,
    mode: settings.mode,
    concurrency: settings.concurrency,
    testingTimeoutMinutes: settings.testingTimeoutMinutes,
    canOptimisticallyMerge: settings.canOptimisticallyMerge,
    batch: settings.batch,
    batchingMaxWaitTimeMinutes: settings.batchingMaxWaitTimeMinutes,
    batchingMinSize: settings.batchingMinSize,
    directMergeMode: settings.directMergeMode,
    optimizationMode: settings.optimizationMode,
    mergeMethod: settings.mergeMethod,
  };
  if (settings.pendingFailureDepth > 0) config.pendingFailureDepth = settings.pendingFailureDepth;
  if (settings.bisectionConcurrency !== undefined) config.bisectionConcurrency = settings.bisectionConcurrency;
  if (settings.adaptiveWindow !== undefined) config.adaptiveWindow = settings.adaptiveWindow;
  if (settings.adaptiveWindowFloor !== undefined) config.adaptiveWindowFloor = settings.adaptiveWindowFloor;
  if (settings.speculationRunsPercent !== undefined) config.speculationRunsPercent = settings.speculationRunsPercent;
  if (settings.parallelBases !== undefined) config.parallelBases = settings.parallelBases;
  return config;
}
