/**
 * What the flaky-test capability keeps in the store. Every key starts with the organization, then the repository id
 * (identity.ts), so one organization's data is one key range that no other organization's request ever reads.
 *
 *   flakyRepos       [org, repoId]                          → FlakyRepoRecord
 *   flakyUploads     [org, repoId, seq]                     → FlakyUploadRecord
 *   flakyUploadKeys  [org, repoId, uploadKey]               → seq of the upload (uploadIdentity.ts)
 *   flakyTests       [org, repoId, testId]                  → FlakyTestRecord
 *   flakyCommits     [org, repoId, sha, testId]             → FlakyCommitRecord   (pass-on-retry across uploads)
 *   flakyShas        [org, repoId, sha]                     → FlakyShaRecord      (the merge queue's verdict)
 *   flakyFailures    [org, repoId, timeMs, seq, testId]     → FlakyFailureRecord  (the failing-tests listing)
 *   flakyMembership  [org, repoId, list, testId]            → FlakyMembershipRecord (the unhealthy and quarantined
 *                                                             listings, as of any sequence number)
 */
import type { DayBucket, HourBucket } from './buckets.js';
import type { RepoRef, TestIdentity } from './identity.js';
import type { RepoSettings } from './settings.js';

export type StatusValue = 'healthy' | 'flaky' | 'broken';
export type QuarantineOverride = 'ALWAYS_QUARANTINE' | 'NEVER_QUARANTINE';
export type MembershipList = 'flaky' | 'broken' | 'quarantined';

export interface FlakyRepoRecord {
  repo: RepoRef;
  /** Change sequence: incremented by every transaction that changes what the listings show. */
  seq: number;
  uploads: number;
  settings: RepoSettings;
  /** The CODEOWNERS text of the latest upload that carried one. */
  codeowners?: { text: string; uploadedAt: number };
  createdAt: number;
}

export interface UploadCounts {
  tests: number;
  passed: number;
  failed: number;
  skipped: number;
}

export interface FlakyUploadRecord {
  id: string;
  seq: number;
  sha: string;
  branch: string;
  prNumber?: number;
  variant: string;
  jobUrl?: string;
  /** When the tests ran (the upload's `timestamp`, else when it was received). */
  at: number;
  receivedAt: number;
  reports: string[];
  counts: UploadCounts;
  infrastructureFailure: boolean;
  /** Failed tests without an identity (no name and no classname, or only counted by their suite). */
  untrackedFailures: number;
  /** The upload's identity (uploadIdentity.ts): its key in flakyUploadKeys, and the digest of its content. */
  key?: string;
  digest?: string;
  /**
   * While the upload is only partly stored: its tests go in `batches` transactions of `size` tests each, in the
   * order of the reports, and the first `stored` are committed (each with this count, in its own transaction).
   * Absent once every batch is stored. Sending the same upload again stores the rest.
   */
  progress?: { batches: number; size: number; stored: number };
}

export interface StatusRecord {
  value: StatusValue;
  reason: string;
  /** When the status changed to this value (ms). */
  at: number;
}

export interface FlakyTestRecord extends TestIdentity {
  id: string;
  line?: number;
  firstSeenAt: number;
  lastSeenAt: number;
  lastRunAt: number;
  status: StatusRecord;
  /** Past statuses, newest last, with the sequence number from which each held (at most 10). */
  history: (StatusRecord & { seq: number })[];
  monitors: {
    /** The latest failed-then-passed on one commit. */
    passOnRetry?: { at: number; sha: string; count: number };
    failureRate: { active: boolean; since?: number };
    broken: { active: boolean; since?: number };
  };
  hours: HourBucket[];
  days: DayBucket[];
  /** The latest runs on the stable branches, oldest first: `[timeMs, 1 failed | 0 passed]` (at most 50). */
  recentStable: [number, 0 | 1][];
  /** PRs whose runs of this test failed: `[prNumber, lastFailureMs]`, pruned to 7 days. */
  prFailures: [number, number][];
  override?: { setting: QuarantineOverride; at: number };
  /** The ticket linked to the test (link-ticket-to-test-case): its id in the tracker and, when given, its address. */
  ticket?: { externalId: string; url?: string; at: number };
  /** Since when the test has been quarantined (ms), while it is. */
  quarantinedAt?: number;
  totals: { runs: number; fails: number; skips: number };
}

export interface FlakyCommitRecord {
  /** Failed attempts outside infrastructure-failure uploads. */
  fails: number;
  /** Failed attempts in infrastructure-failure uploads (kept apart: they say nothing about the test). */
  infraFails: number;
  passes: number;
  lastAt: number;
}

export interface FlakyShaRecord {
  uploads: number[];
  /** Tests that failed on this commit and never passed on it. */
  failing: { id: string; name: string }[];
  untrackedFailures: number;
  /**
   * Uploads for this commit being stored over several transactions (a large upload): until they end, the failing
   * tests listed are not all known, and the merge queue's verdict vouches for nothing. Absent when none.
   */
  storing?: number;
  /**
   * The least and the greatest `at` of the uploads of this commit (each per-test result under it has a `lastAt`
   * between them), so that retention keeps or drops a commit's results whole without reading them. Absent on records
   * stored before they were kept: retention then reads the commit's results one by one.
   */
  firstAt?: number;
  lastAt?: number;
}

export interface FlakyFailureRecord {
  /** Failed attempts of the test in that upload. */
  n: number;
  /** Normalised failure messages and how many attempts failed with each (at most 3). */
  m: [string, number][];
}

/** `[fromSeq, toSeq | null, fromMs]`: the test is in the list for snapshots N with fromSeq ≤ N < toSeq. */
export type MembershipInterval = [number, number | null, number];

export interface FlakyMembershipRecord {
  intervals: MembershipInterval[];
}
