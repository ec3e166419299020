/**
 * Retention inside a queue's transaction (the `prune` input): deleting what ended long ago. It goes through the
 * queue's transaction, not plain store writes, so that the queue's event counter moves and its working set
 * (runtime/workingSet.ts) stays the state of the store; the working set never holds what is deleted here (it holds
 * enqueued PRs and active runs only). The sweep (engine/retention) chooses the candidates; this handler checks each
 * again against the queue as it is in this transaction, so a PR submitted again, or a run still needed, stays. The
 * outcome depends only on the input and the stored state: a replay of a log that holds a prune does the same.
 */
import { FINAL_PULL_REQUEST_STATES } from '../../machines/vocabulary.js';
import type { QueueInput } from '../model/events.js';
import type { QueueRecord } from '../model/queues.js';
import type { ReadTx } from '../store/store.js';
import type { QueueTx } from './queueTx.js';
import { hasTestRunTag } from '../../machines/index.js';
import { forgetEnded } from '../history/endedIndex.js';

type PruneInput = Extract<QueueInput, { type: 'prune' }>;

/** The inputs that are the queue's settings history: kept when the events around them go. */
const SETTINGS_EVENTS = new Set(['created', 'configured']);

/**
 * PR numbers the queue's runtime still refers to: enqueued, merged under a result still in play (in an enqueued PR's
 * tested base), under an active run, in a bisection. (`runtime.merged` may hold merged PRs nothing refers to any more
 * a while longer: it is tidied when it has doubled.)
 */
export function referencedPrs(tx: ReadTx, queue: QueueRecord): Set<number> {
  const runtime = queue.runtime;
  const numbers = new Set([...runtime.lineup, ...runtime.waiting]);
  for (const number of [...runtime.lineup, ...runtime.waiting]) {
    for (const base of tx.get('pullRequests', [queue.id, number])?.testedBase ?? []) numbers.add(base);
  }
  for (const runId of runtime.activeRuns) {
    const run = tx.get('testRuns', [queue.id, runId]);
    for (const number of [...(run?.prs ?? []), ...(run?.basePrs ?? [])]) numbers.add(number);
  }
  for (const memory of Object.values(runtime.bisections)) {
    for (const set of memory.failed) for (const number of [...set.prs, ...set.base]) numbers.add(number);
    for (const number of memory.merged) numbers.add(number);
    for (const wait of Object.values(memory.waits ?? {})) for (const number of wait.parent) numbers.add(number);
  }
  return numbers;
}

export function prune(q: QueueTx, input: PruneInput): void {
  const id = q.queue.id;
  const tx = q.tx;
  const kept = referencedPrs(tx, q.queue);
  for (const number of input.prs) {
    if (kept.has(number)) continue;
    const pr = tx.get('pullRequests', [id, number]);
    if (pr === undefined || !FINAL_PULL_REQUEST_STATES.includes(pr.state) || !(pr.stateChangedAt < input.before))
      continue;
    forgetEnded(tx, id, pr);
    tx.remove('pullRequests', [id, number]);
    tx.remove('actors', [id, 'pr', number]);
    for (const collection of ['timeline', 'impactedTargets'] as const) {
      for (const { key } of tx.scan(collection, { prefix: [id, number] })) tx.remove(collection, key);
    }
    tx.remove('impactedTargetShas', [id, number]);
    // The index of the queue's own merges (a push webhook for one is not the target moving) lets go of it too.
    const head = pr.mergedSha?.toLowerCase();
    if (head !== undefined && tx.get('mergedHeads', [id, head]) === number) tx.remove('mergedHeads', [id, head]);
  }
  const active = new Set(q.runtime.activeRuns);
  for (const runId of input.runs) {
    if (active.has(runId)) continue;
    const run = tx.get('testRuns', [id, runId]);
    if (
      run === undefined ||
      hasTestRunTag(run.status, 'inProgress') ||
      run.endedAt === null ||
      !(run.endedAt < input.before)
    )
      continue;
    tx.remove('testRuns', [id, runId]);
    tx.remove('actors', [id, 'run', runId]);
    if (run.testBranchSha !== '') {
      const shaKey = [q.queue.org, run.testBranchSha.toLowerCase()];
      if (tx.get('runsBySha', shaKey)?.[1] === runId) tx.remove('runsBySha', shaKey);
    }
  }
  if (input.events !== undefined) pruneEvents(q, input.events);
}

/** Deletes the log's events from where it starts up to `below` (exclusive), stopping at the first one not older. */
function pruneEvents(q: QueueTx, events: { below: number; before: string }): void {
  const id = q.queue.id;
  const from = q.queue.eventsFrom?.seq ?? 0;
  let cut = from;
  for (const { key, value } of q.tx.scan('events', { start: [id, from], end: [id, events.below] })) {
    if (!(value.at < events.before)) break;
    cut = value.seq + 1;
    if (!SETTINGS_EVENTS.has(value.input.type)) q.tx.remove('events', key);
  }
  if (cut > from) q.queue.eventsFrom = { seq: cut, before: events.before };
}
