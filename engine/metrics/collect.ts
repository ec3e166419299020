/**
 * Reads what a scrape shows, in one store read: for each queue of the organization (optionally of one host or
 * repository), its current PRs and runs (the point-in-time gauges), its cumulative totals, the last hour of its
 * metrics log, and its outbox. The cost is per queue: its enqueued PRs, its active runs, one hour of its log; never
 * its whole history.
 */
import { isEnqueued } from '../../machines/vocabulary.js';
import type { QueueRecord } from '../model/queues.js';
import type { WorkingSet } from '../runtime/workingSet.js';
import { NO_OUTCOMES, type Outcome } from '../notifications/records.js';
import type { ReadTx, Store } from '../store/store.js';
import { readTotals, WINDOW_MS, type MetricsLogEntry, type MetricsTotals, type QueueType } from './records.js';
import { hasPullRequestTag } from '../../machines/index.js';

export interface MetricsFilter {
  host?: string;
  owner?: string;
  name?: string;
}

export type PerType = Record<QueueType, number>;

export interface QueueSample {
  queue: QueueRecord;
  /** Enqueued PRs past NOT_READY (PENDING, TESTING, TESTS_PASSED, PENDING_FAILURE). */
  depth: PerType;
  /** Enqueued PRs in NOT_READY. */
  awaitingMergeability: PerType;
  /** PRs in TESTING. */
  testing: PerType;
  /** Enqueued PRs (every state), and runs in progress: the live actors besides the queue's own. */
  enqueued: number;
  activeRuns: number;
  totals: MetricsTotals;
  /** The log entries of the last hour, oldest first. */
  window: MetricsLogEntry[];
  /** Effects decided and not yet done, and when the oldest of them was decided (null: none, or not recorded). */
  outboxEffects: number;
  oldestEffectAt: number | null;
}

export interface MetricsSnapshot {
  now: number;
  queues: QueueSample[];
  /** Bytes the whole store occupies (every organization). */
  storeSizeBytes: number;
  /** The organization's outgoing webhooks: attempts by outcome, messages waiting (notifications/). */
  webhooks: { outcomes: Record<Outcome, number>; pending: number };
}

const zero = (): PerType => ({ main: 0, bisection: 0 });

/** The queues of `org` (optionally of one host, owner or repository), ordered by host, owner, name and branch. */
function queuesOf(tx: ReadTx, org: string, filter: MetricsFilter): QueueRecord[] {
  // queueIndex keys are [org, host, owner, name, branch], lower case but the branch (see Engine.listQueues).
  const prefix: string[] = [org];
  for (const part of [filter.host, filter.owner, filter.name]) {
    if (part === undefined) break;
    prefix.push(part.toLowerCase());
  }
  return [...tx.scan('queueIndex', { prefix })].flatMap(({ value }) => tx.get('queues', [value]) ?? []);
}

function sampleQueue(tx: ReadTx, queue: QueueRecord, now: number, set: WorkingSet | undefined): QueueSample {
  const depth = zero();
  const awaitingMergeability = zero();
  const testing = zero();
  const runKinds = new Map<string, QueueType>();
  for (const runId of queue.runtime.activeRuns) {
    const run = set?.runs.get(runId)?.record ?? tx.get('testRuns', [queue.id, runId]);
    if (run !== undefined) runKinds.set(runId, run.kind);
  }
  let enqueued = 0;
  for (const number of new Set([...queue.runtime.lineup, ...queue.runtime.waiting])) {
    const pr = set?.prs.get(number)?.record ?? tx.get('pullRequests', [queue.id, number]);
    if (pr === undefined || !isEnqueued(pr.state)) continue;
    enqueued++;
    const inRun = hasPullRequestTag(pr.state, 'testing') && pr.runId !== null ? runKinds.get(pr.runId) : undefined;
    const type: QueueType = inRun ?? (pr.bisectionId !== null ? 'bisection' : 'main');
    if (hasPullRequestTag(pr.state, 'notReady')) awaitingMergeability[type]++;
    else depth[type]++;
    if (hasPullRequestTag(pr.state, 'testing')) testing[type]++;
  }
  // The window is (now - 1h, now]: an observation made exactly one hour ago has dropped out.
  const window = [...tx.scan('metricsLog', { prefix: [queue.id], start: [queue.id, Math.max(0, now - WINDOW_MS + 1)] })]
    .filter(({ key }) => Number(key[1]) <= now)
    .map(({ value }) => value);
  const oldest = [...tx.scan('outbox', { prefix: [queue.id], limit: 1 })][0]?.value;
  return {
    queue,
    depth,
    awaitingMergeability,
    testing,
    enqueued,
    activeRuns: queue.runtime.activeRuns.length,
    totals: set?.metrics.totals ?? readTotals(tx.get('metricsTotals', [queue.id])),
    window,
    outboxEffects: oldest === undefined ? 0 : tx.count('outbox', { prefix: [queue.id] }),
    oldestEffectAt: typeof oldest?.decidedAt === 'number' ? oldest.decidedAt : null,
  };
}

/** The organization's webhook outcomes and waiting messages (these are few: the sender drains them as it goes). */
function webhookSample(tx: ReadTx, org: string): MetricsSnapshot['webhooks'] {
  const outcomes = { ...NO_OUTCOMES, ...tx.get('webhookOrgs', [org])?.outcomes };
  let pending = 0;
  if ((tx.get('webhookOrgs', [org])?.endpoints ?? 0) > 0)
    for (const { value } of tx.scan('webhookPending')) if (value === org) pending++;
  return { outcomes, pending };
}

export function collectMetrics(
  store: Store,
  org: string,
  filter: MetricsFilter,
  now: number,
  workingSet: (queue: QueueRecord) => WorkingSet | undefined = () => undefined,
): MetricsSnapshot {
  const { queues, webhooks } = store.read((tx) => ({
    queues: queuesOf(tx, org, filter).map((queue) => sampleQueue(tx, queue, now, workingSet(queue))),
    webhooks: webhookSample(tx, org),
  }));
  return { now, queues, storeSizeBytes: store.stats().sizeBytes, webhooks };
}
