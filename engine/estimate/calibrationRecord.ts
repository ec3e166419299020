/**
 * The queue's record that calibrates its P90 (calibration.ts), kept in the store so that it survives a restart:
 *
 * - `estimateSamples` [queueId, prNumber]: the forecast as the play gave it for the PR's current queue entry when it
 *   became ready and when it reached the head of the line-up (each once per entry);
 * - `estimateScores` [queueId]: the scores of the latest merged PRs, per stage (a window of SCORE_WINDOW each).
 *
 * The samples of the PRs still waiting count too, as bounds (`readWaiting`): a PR given an estimate at t that has
 * not merged by now will take at least now − t.
 *
 * Both are written by the queue's own transactions (`recordEstimates`, called at commit): a PR that became ready or
 * reached the head without a sample gets one, from a forecast of the line-up as the transaction leaves it (one per
 * commit that needs it: about two per PR over its stay); a PR that ended drops its sample, and one that merged
 * first adds its scores. So the reads that serve estimates stay read-only, a sample is taken whoever reads or not,
 * and a PR's sample lives no longer than its stay in the queue (nothing is left for pruning). Derived from the
 * forecast, not the queue's state: event-log digests leave both out (runtime/eventLogDigests.ts).
 */
import { FINAL_PULL_REQUEST_STATES } from '../../machines/vocabulary.js';
import type { PullRequestRecord } from '../model/pullRequests.js';
import type { QueueRecord } from '../model/queues.js';
import type { TestRunRecord } from '../model/testRuns.js';
import type { ReadTx, WriteTx } from '../store/store.js';
import { type CalibrationScores, type GivenEstimate, scoreOf, type Stage, withScore } from './calibration.js';
import type { MergeEstimate } from './model.js';

/** A PR's forecast as given, for its queue entry `entry` (PullRequestRecord.id), at each stage it reached. */
export interface EstimateSample {
  entry: string;
  ready?: GivenEstimate;
  head?: GivenEstimate;
}

export type { CalibrationScores } from './calibration.js';

const NO_SCORES: CalibrationScores = { ready: [], head: [] };

export function readScores(tx: ReadTx, queueId: string): CalibrationScores {
  return tx.get('estimateScores', [queueId]) ?? NO_SCORES;
}

/** The PRs still in the queue that were given an estimate, each as a score of at least what it has waited until `now`. */
export function readWaiting(tx: ReadTx, queueId: string, now: number): CalibrationScores {
  const waiting: CalibrationScores = { ready: [], head: [] };
  for (const { value } of tx.scan('estimateSamples', { prefix: [queueId] })) {
    for (const stage of ['ready', 'head'] as const) {
      const given = value[stage];
      const bound = given === undefined || given.t >= now ? undefined : scoreOf(given, now);
      if (bound !== undefined) waiting[stage].push(bound);
    }
  }
  return waiting;
}

/** What recordEstimates needs of a queue transaction (transaction/queueTx.ts), as it stands at commit. */
export interface EstimateTxView {
  readonly tx: WriteTx;
  readonly queue: QueueRecord;
  readonly now: number;
  enqueuedPr(number: number): PullRequestRecord | undefined;
  run(id: string): TestRunRecord | undefined;
}

/** The play's forecast of the line-up (estimate/index.ts forecastQueue), passed in so that this file need not import it. */
export type Forecast = (
  tx: ReadTx,
  queue: QueueRecord,
  enqueued: readonly PullRequestRecord[],
  runOf: (runId: string) => TestRunRecord | undefined,
  now: number,
) => Map<number, MergeEstimate>;

/**
 * At a queue transaction's commit: `changed` are the records of the PRs whose state it moved. Those that ended drop
 * their samples (merged ones score them first); a PR now ready or at the head without a sample for its entry gets one.
 */
export function recordEstimates(q: EstimateTxView, changed: readonly PullRequestRecord[], forecast: Forecast): void {
  const { tx, queue, now } = q;
  const id = queue.id;
  const lineup = queue.runtime.lineup;
  let scores: CalibrationScores | undefined;
  for (const pr of changed) {
    if (!FINAL_PULL_REQUEST_STATES.includes(pr.state)) continue;
    const sample = tx.get('estimateSamples', [id, pr.number]);
    if (sample === undefined) continue;
    tx.remove('estimateSamples', [id, pr.number]);
    if (pr.state !== 'MERGED' || sample.entry !== pr.id) continue;
    for (const stage of ['ready', 'head'] as const) {
      const given = sample[stage];
      const score = given === undefined ? undefined : scoreOf(given, now);
      if (score === undefined) continue;
      scores ??= readScores(tx, id);
      scores = { ...scores, [stage]: withScore(scores[stage], score) };
    }
  }
  if (scores !== undefined) tx.put('estimateScores', [id], scores);
  // Who needs a sample: a changed PR now in the line-up (it became ready), and the PR at its head.
  const inLineup = new Set(lineup);
  const wanted = new Map<number, { pr: PullRequestRecord; sample: EstimateSample | undefined; stages: Stage[] }>();
  const want = (number: number, stage: Stage) => {
    const pr = q.enqueuedPr(number);
    if (pr === undefined) return;
    let entry = wanted.get(number);
    if (entry === undefined) {
      const stored = tx.get('estimateSamples', [id, number]);
      entry = { pr, sample: stored?.entry === pr.id ? stored : undefined, stages: [] };
      wanted.set(number, entry);
    }
    if (entry.sample?.[stage] === undefined && !entry.stages.includes(stage)) entry.stages.push(stage);
  };
  for (const pr of changed) if (inLineup.has(pr.number)) want(pr.number, 'ready');
  if (lineup[0] !== undefined) want(lineup[0], 'head');
  const needed = [...wanted.values()].filter((entry) => entry.stages.length > 0);
  if (needed.length === 0) return;
  const enqueued = lineup.flatMap((number) => q.enqueuedPr(number) ?? []);
  const estimates = forecast(tx, queue, enqueued, (runId) => q.run(runId), now);
  for (const { pr, sample, stages } of needed) {
    const estimate = estimates.get(pr.number);
    // No estimate yet (the queue has seen no CI run): nothing to score later.
    if (estimate === undefined) continue;
    const next: EstimateSample = sample === undefined ? { entry: pr.id } : { ...sample };
    for (const stage of stages) next[stage] = { t: now, m: estimate.at, p: estimate.p90 };
    tx.put('estimateSamples', [id, pr.number], next);
  }
}
