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
 * Ended PRs are handled by the queue's own transactions (`recordEnds`, called at commit, no forecast): a PR that ended
 * drops its sample, and one that merged first adds its scores. Samples are taken outside them, by the runtime's
 * sampler (runtime/estimateSampler.ts): a commit after which a PR of the line-up lacks a sample for its stage marks the
 * queue due, and the sampler takes one forecast of the line-up (`lackingSamples`, then `writeSamples` in a write of
 * its own), at most once per queue per interval. So the reads that serve estimates stay read-only, a sample is taken
 * whoever reads or not, and a PR's sample lives no longer than its stay in the queue (nothing is left for pruning).
 * Derived from the forecast, not the queue's state: event-log digests leave both out (runtime/eventLogDigests.ts).
 */
import { FINAL_PULL_REQUEST_STATES } from '../../machines/vocabulary.js';
import type { PullRequestRecord } from '../model/pullRequests.js';
import type { QueueRecord } from '../model/queues.js';
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

/** What recordEnds needs of a queue transaction (transaction/queueTx.ts), as it stands at commit. */
export interface EstimateTxView {
  readonly tx: WriteTx;
  readonly queue: QueueRecord;
  readonly now: number;
  enqueuedPr(number: number): PullRequestRecord | undefined;
}

/** A PR of the line-up that lacks a sample for its current entry at some stage it reached. */
export interface LackingSample {
  number: number;
  entry: string;
  stages: Stage[];
}

/**
 * The PRs of the line-up that lack a sample for their entry: `numbers` of them at readiness (each PR of the line-up
 * when undefined), and the PR at the head at the head. `prOf`: a PR's record while it is enqueued.
 */
export function lackingSamples(
  tx: ReadTx,
  queue: QueueRecord,
  prOf: (number: number) => PullRequestRecord | undefined,
  numbers?: readonly number[],
): LackingSample[] {
  const lineup = queue.runtime.lineup;
  const lacking = new Map<number, LackingSample>();
  const want = (number: number, stage: Stage) => {
    const pr = prOf(number);
    if (pr === undefined) return;
    const stored = tx.get('estimateSamples', [queue.id, number]);
    if (stored?.entry === pr.id && stored[stage] !== undefined) return;
    const entry = lacking.get(number) ?? { number, entry: pr.id, stages: [] };
    entry.stages.push(stage);
    lacking.set(number, entry);
  };
  // A transaction changes a few PRs: looked up in the line-up one by one, not by a set built of it at every commit.
  for (const number of numbers ?? lineup) if (numbers === undefined || lineup.includes(number)) want(number, 'ready');
  if (lineup[0] !== undefined) want(lineup[0], 'head');
  return [...lacking.values()];
}

/**
 * At a queue transaction's commit: `changed` are the records of the PRs whose state it moved. Those that ended drop
 * their samples (merged ones score them first). No forecast: it answers whether a PR now ready or at the head lacks a
 * sample, for the runtime's sampler (runtime/estimateSampler.ts) to take one after the commit.
 */
export function recordEnds(q: EstimateTxView, changed: readonly PullRequestRecord[]): boolean {
  const { tx, queue, now } = q;
  const id = queue.id;
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
  const numbers = changed.map((pr) => pr.number);
  return lackingSamples(tx, queue, (number) => q.enqueuedPr(number), numbers).length > 0;
}

/**
 * The sampler's write: each PR that lacked a sample, still enqueued in the same entry (its record read in this
 * transaction), gets the forecast `estimates` made at `t` for the stages it still lacks. A PR the forecast gives no
 * estimate (the queue has seen no CI run) gets none: nothing to score later.
 */
export function writeSamples(
  tx: WriteTx,
  queueId: string,
  lacking: readonly LackingSample[],
  estimates: ReadonlyMap<number, MergeEstimate>,
  t: number,
): number {
  let written = 0;
  for (const { number, entry, stages } of lacking) {
    const estimate = estimates.get(number);
    const pr = tx.get('pullRequests', [queueId, number]);
    if (estimate === undefined || pr?.id !== entry || FINAL_PULL_REQUEST_STATES.includes(pr.state)) continue;
    const stored = tx.get('estimateSamples', [queueId, number]);
    const next: EstimateSample = stored?.entry === entry ? { ...stored } : { entry };
    for (const stage of stages) next[stage] ??= { t, m: estimate.at, p: estimate.p90 };
    tx.put('estimateSamples', [queueId, number], next);
    written++;
  }
  return written;
}
