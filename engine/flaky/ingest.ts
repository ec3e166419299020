/**
 * An upload: the upload record, each test's record (counters, buckets, retry evidence, status and list memberships),
 * its result on the commit, its failures by time, and the commit's failing tests for the merge queue. A small upload
 * is one transaction (writeUpload); a large one is stored in batches of tests (ingestBatches.ts). Parsing happens
 * before any transaction, so an invalid report stores nothing.
 */
import { randomUUID } from 'node:crypto';
import type { WriteTx } from '../store/store.js';
import type { AggregatedUpload, UploadedTest } from './aggregate.js';
import { addToBuckets, DAY_MS, DAY_RETENTION, dayIndex, HOUR_RETENTION, hourIndex } from './buckets.js';
import { repoId as repoIdOf, type RepoRef } from './identity.js';
import { evaluate } from './monitors.js';
import type {
  FlakyCommitRecord,
  FlakyRepoRecord,
  FlakyShaRecord,
  FlakyTestRecord,
  FlakyUploadRecord,
} from './records.js';
import { BROKEN_MAX_AGE_DAYS, DEFAULT_SETTINGS, MAX_WINDOW_RUNS, withDefaults, type RepoSettings } from './settings.js';
import { applyEvaluation, newTestRecord, saveTest, type ChangeContext } from './transitions.js';
import type { UploadIdentity } from './uploadIdentity.js';

export interface UploadMeta {
  repo: RepoRef;
  sha: string;
  branch: string;
  prNumber?: number;
  variant: string;
  jobUrl?: string;
  /** When the tests ran (ms); defaults to now. */
  timestamp?: number;
  codeowners?: string;
  reports: string[];
}

export interface UploadResult {
  uploadId: string;
  /** True when this upload (the same identity: uploadIdentity.ts) had been stored in full before: nothing was counted again. */
  alreadyStored: boolean;
  seq: number;
  tests: number;
  passed: number;
  failed: number;
  skipped: number;
  infrastructureFailure: boolean;
}

const PR_WINDOW_MS = 7 * DAY_MS;
const MAX_PR_ENTRIES = 500;
const MESSAGES_PER_FAILURE = 3;

export function isInfrastructureFailure(upload: AggregatedUpload, settings: RepoSettings): boolean {
  const rule = settings.infrastructureFailure;
  return rule.enabled && upload.ran >= rule.minTests && upload.counts.failed / upload.ran > rule.threshold;
}

export function getOrCreateRepo(tx: WriteTx, org: string, repo: RepoRef, now: number): FlakyRepoRecord {
  const stored = tx.get('flakyRepos', [org, repoIdOf(repo)]);
  if (stored !== undefined) return { ...stored, settings: withDefaults(stored.settings) };
  return { repo, seq: 0, uploads: 0, settings: structuredClone(DEFAULT_SETTINGS), createdAt: now };
}

interface TestUpdate {
  context: ChangeContext;
  upload: FlakyUploadRecord;
  stable: boolean;
}

/** The test's record after this upload's results, before its status is re-evaluated. */
function recordResults(
  test: FlakyTestRecord,
  result: UploadedTest,
  commitBefore: FlakyCommitRecord | undefined,
  commitAfter: FlakyCommitRecord,
  { context, upload, stable }: TestUpdate,
): FlakyTestRecord {
  const { now } = context;
  const { passed, failed, skipped } = result.attempts;
  const runs = passed + failed;
  const next: FlakyTestRecord = {
    ...test,
    lastSeenAt: Math.max(test.lastSeenAt, upload.at),
    totals: { runs: test.totals.runs + runs, fails: test.totals.fails + failed, skips: test.totals.skips + skipped },
  };
  if (result.line !== undefined) next.line = result.line;
  if (runs > 0) next.lastRunAt = Math.max(test.lastRunAt, upload.at);
  if (upload.infrastructureFailure) return next;

  const stableRuns = stable ? runs : 0;
  const stableFails = stable ? failed : 0;
  next.hours = addToBuckets(test.hours, hourIndex(upload.at), [runs, failed], hourIndex(now) - HOUR_RETENTION);
  if (stable && runs > 0) {
    const outcomes: [number, 0 | 1][] = [
      ...Array.from({ length: Math.min(failed, MAX_WINDOW_RUNS) }, () => [upload.at, 1] as [number, 0 | 1]),
      ...Array.from({ length: Math.min(passed, MAX_WINDOW_RUNS) }, () => [upload.at, 0] as [number, 0 | 1]),
    ];
    next.recentStable = [...test.recentStable, ...outcomes]
      .filter(([at]) => at > now - BROKEN_MAX_AGE_DAYS * DAY_MS)
      .sort((a, b) => a[0] - b[0])
      .slice(-MAX_WINDOW_RUNS);
  }
  const monitored = test.monitors.broken.active ? [0, 0, 0, 0] : [runs, failed, stableRuns, stableFails];
  next.days = addToBuckets(
    test.days,
    dayIndex(upload.at),
    [runs, failed, stableRuns, stableFails, ...monitored],
    dayIndex(now) - DAY_RETENTION,
  );

  const withinUpload = failed > 0 && passed > 0;
  const hadBoth = (commitBefore?.fails ?? 0) > 0 && (commitBefore?.passes ?? 0) > 0;
  const hasBoth = commitAfter.fails > 0 && commitAfter.passes > 0;
  if (withinUpload || (hasBoth && !hadBoth)) {
    const previous = test.monitors.passOnRetry;
    const stillActive =
      previous !== undefined && upload.at - previous.at < context.settings.passOnRetry.resolutionDays * DAY_MS;
    next.monitors = {
      ...next.monitors,
      passOnRetry: {
        at: Math.max(upload.at, previous?.at ?? 0),
        sha: upload.sha,
        count: stillActive ? previous.count + 1 : 1,
      },
    };
  }
  if (failed > 0 && upload.prNumber !== undefined) {
    const kept = test.prFailures.filter(([pr, at]) => pr !== upload.prNumber && at > now - PR_WINDOW_MS);
    next.prFailures = [...kept, [upload.prNumber, upload.at] as [number, number]].slice(-MAX_PR_ENTRIES);
  }
  return next;
}

function topMessages(messages: Map<string, number>): [string, number][] {
  return [...messages].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, MESSAGES_PER_FAILURE);
}

/** What stays the same across the transactions that store one upload (ingestBatches.ts). */
export interface UploadInProgress {
  org: string;
  repoKey: string;
  upload: FlakyUploadRecord;
  untrackedFailures: number;
  /** How many transactions store it: with more than one, the commit's verdict says an upload is being stored. */
  batches: number;
}

/** How an upload is cut into transactions: `batches` of `size` tests each (the last one may hold fewer). */
export interface BatchPlan {
  batches: number;
  size: number;
}

/**
 * The upload's record (with its identity, and its progress when it takes several transactions), and the
 * repository's change sequence and upload count: the first transaction, which also stores the first batch.
 */
export function beginUpload(
  tx: WriteTx,
  org: string,
  meta: UploadMeta,
  aggregated: AggregatedUpload,
  now: number,
  plan: BatchPlan,
  identity?: UploadIdentity,
): UploadInProgress {
  const repoKey = repoIdOf(meta.repo);
  const repo = getOrCreateRepo(tx, org, meta.repo, now);
  const seq = repo.seq + 1;
  const at = Math.min(meta.timestamp ?? now, now);
  const upload: FlakyUploadRecord = {
    id: randomUUID(),
    seq,
    sha: meta.sha,
    branch: meta.branch,
    variant: meta.variant,
    at,
    receivedAt: now,
    reports: meta.reports,
    counts: aggregated.counts,
    infrastructureFailure: isInfrastructureFailure(aggregated, repo.settings),
    untrackedFailures: aggregated.untrackedFailures,
  };
  if (meta.prNumber !== undefined) upload.prNumber = meta.prNumber;
  if (meta.jobUrl !== undefined) upload.jobUrl = meta.jobUrl;
  if (identity !== undefined) {
    upload.key = identity.key;
    upload.digest = identity.digest;
    tx.put('flakyUploadKeys', [org, repoKey, identity.key], seq);
  }
  if (plan.batches > 1) upload.progress = { batches: plan.batches, size: plan.size, stored: 1 };
  tx.put('flakyUploads', [org, repoKey, seq], upload);
  const nextRepo: FlakyRepoRecord = { ...repo, seq, uploads: repo.uploads + 1 };
  if (meta.codeowners !== undefined) nextRepo.codeowners = { text: meta.codeowners, uploadedAt: now };
  tx.put('flakyRepos', [org, repoKey], nextRepo);
  return { org, repoKey, upload, untrackedFailures: aggregated.untrackedFailures, batches: plan.batches };
}

/**
 * Transaction `index` of the upload: these tests' records (counters, buckets, retry evidence, status and list
 * memberships), their results on the commit and failures by time, then the commit's failing tests. Each transaction
 * after the first is a change of the repository of its own (its sequence number moves on), so list memberships stay
 * in order whatever else changes the repository between two of them.
 */
export function writeTests(
  tx: WriteTx,
  job: UploadInProgress,
  tests: Iterable<UploadedTest>,
  index: number,
  now: number,
): void {
  const { org, repoKey, upload } = job;
  const repo = tx.get('flakyRepos', [org, repoKey]) as FlakyRepoRecord;
  const seq = index === 0 ? upload.seq : repo.seq + 1;
  if (index > 0) tx.put('flakyRepos', [org, repoKey], { ...repo, seq });
  const settings = withDefaults(repo.settings);
  const context: ChangeContext = { tx, org, repoId: repoKey, seq, now, settings };
  const update: TestUpdate = { context, upload, stable: settings.stableBranches.includes(upload.branch) };
  const shaKey = [org, repoKey, upload.sha];
  const shaBefore = tx.get('flakyShas', shaKey);
  const failing = new Map((shaBefore?.failing ?? []).map((entry) => [entry.id, entry]));
  const infrastructureFailure = upload.infrastructureFailure;

  for (const result of tests) {
    const before = tx.get('flakyTests', [org, repoKey, result.id]);
    const base = before ?? newTestRecord(result.id, result.identity, upload.at);
    const commitKey = [org, repoKey, upload.sha, result.id];
    const commitBefore = tx.get('flakyCommits', commitKey);
    const commitAfter: FlakyCommitRecord = {
      fails: (commitBefore?.fails ?? 0) + (infrastructureFailure ? 0 : result.attempts.failed),
      infraFails: (commitBefore?.infraFails ?? 0) + (infrastructureFailure ? result.attempts.failed : 0),
      passes: (commitBefore?.passes ?? 0) + result.attempts.passed,
      lastAt: Math.max(commitBefore?.lastAt ?? 0, upload.at),
    };
    tx.put('flakyCommits', commitKey, commitAfter);
    if (commitAfter.fails + commitAfter.infraFails > 0 && commitAfter.passes === 0) {
      failing.set(result.id, { id: result.id, name: result.identity.name || result.identity.classname });
    } else {
      failing.delete(result.id);
    }

    if (result.attempts.failed > 0) {
      tx.put('flakyFailures', [org, repoKey, upload.at, upload.seq, result.id], {
        n: result.attempts.failed,
        m: topMessages(result.messages),
      });
    }
    const recorded = recordResults(base, result, commitBefore, commitAfter, update);
    saveTest(context, before, applyEvaluation(recorded, evaluate(recorded, settings, now), seq));
  }

  const shaRecord: FlakyShaRecord = {
    uploads: index === 0 ? [...(shaBefore?.uploads ?? []), upload.seq] : (shaBefore?.uploads ?? [upload.seq]),
    failing: [...failing.values()],
    untrackedFailures: (shaBefore?.untrackedFailures ?? 0) + (index === 0 ? job.untrackedFailures : 0),
  };
  // While an upload is stored over several transactions, its commit's failing tests are not all known yet.
  const storing =
    (shaBefore?.storing ?? 0) +
    (job.batches > 1 && index === 0 ? 1 : 0) -
    (job.batches > 1 && index === job.batches - 1 ? 1 : 0);
  if (storing > 0) shaRecord.storing = storing;
  // Kept only where known from the first upload on: a record from before has had uploads of unknown times.
  if (shaBefore === undefined || shaBefore.firstAt !== undefined) {
    shaRecord.firstAt = Math.min(shaBefore?.firstAt ?? upload.at, upload.at);
    shaRecord.lastAt = Math.max(shaBefore?.lastAt ?? upload.at, upload.at);
  }
  tx.put('flakyShas', shaKey, shaRecord);
}

export function resultOf(upload: FlakyUploadRecord, alreadyStored = false): UploadResult {
  return {
    uploadId: upload.id,
    alreadyStored,
    seq: upload.seq,
    ...upload.counts,
    infrastructureFailure: upload.infrastructureFailure,
  };
}

/** Writes one upload in one transaction. `aggregated` comes from aggregateUpload; nothing here can fail on user input. */
export function writeUpload(
  tx: WriteTx,
  org: string,
  meta: UploadMeta,
  aggregated: AggregatedUpload,
  now: number,
): UploadResult {
  const job = beginUpload(tx, org, meta, aggregated, now, { batches: 1, size: aggregated.tests.size });
  writeTests(tx, job, aggregated.tests.values(), 0, now);
  return resultOf(job.upload);
}
