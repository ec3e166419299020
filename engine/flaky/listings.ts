/**
 * The three listings, read in one store transaction each, from a snapshot: the repository's sequence number when
 * the walk began (carried by the page tokens). Rows are in test-id order; each row's figures (status, rates,
 * quarantine) are current.
 *
 * - failing: tests with a failure in [start, end), from `flakyFailures` scanned over that range only;
 * - unhealthy (flaky or broken) and quarantined: from `flakyMembership` as of the snapshot.
 */
import type { ReadTx } from '../store/store.js';
import { DAY_MS, dayIndex, hourIndex, rate, sumBuckets } from './buckets.js';
import { ownersOf, parseCodeowners, type CodeownersRule } from './codeowners.js';
import { repoId as repoIdOf, type RepoRef } from './identity.js';
import { membersAt } from './membership.js';
import { decodePageToken, encodePageToken, paginate, queryHash, type PageInfo } from './pageToken.js';
import { quarantineSetting, type QuarantineSetting } from './quarantine.js';
import type { FlakyRepoRecord, FlakyTestRecord } from './records.js';
import { withDefaults, type RepoSettings } from './settings.js';

export interface PageQuery {
  repo: RepoRef;
  pageSize: number;
  pageToken: string;
}

export interface FailingQuery extends PageQuery {
  /** Inclusive (ms). */
  start: number;
  /** Exclusive (ms). */
  end: number;
}

export interface UnhealthyQuery extends PageQuery {
  status: 'FLAKY' | 'BROKEN';
}

export interface FailureSummary {
  summary: string;
  count: number;
  lastAt: number;
}

export interface TestRow {
  test: FlakyTestRecord;
  codeowners: string[];
  quarantine: QuarantineSetting | undefined;
  failureRate7d: number;
  failureRate24h: number;
  pullRequestsImpacted7d: number;
}

export interface FailingRow extends TestRow {
  mostCommonFailures: FailureSummary[];
}

export interface QuarantinedRow extends TestRow {
  quarantine: QuarantineSetting;
  quarantinedAt: number;
}

export interface Listing<R> {
  rows: R[];
  page: PageInfo;
}

const MOST_COMMON_FAILURES = 5;

interface ListingContext {
  tx: ReadTx;
  org: string;
  repoId: string;
  repo: FlakyRepoRecord | undefined;
  settings: RepoSettings;
  rules: CodeownersRule[];
  now: number;
}

function contextFor(tx: ReadTx, org: string, repo: RepoRef, now: number): ListingContext {
  const repoId = repoIdOf(repo);
  const record = tx.get('flakyRepos', [org, repoId]);
  return {
    tx,
    org,
    repoId,
    repo: record,
    settings: withDefaults(record?.settings),
    rules: record?.codeowners === undefined ? [] : parseCodeowners(record.codeowners.text),
    now,
  };
}

export function testRow(context: Pick<ListingContext, 'settings' | 'rules' | 'now'>, test: FlakyTestRecord): TestRow {
  const { now } = context;
  const currentDay = dayIndex(now);
  const currentHour = hourIndex(now);
  const [runs7d = 0, fails7d = 0] = sumBuckets(test.days, currentDay - 7, currentDay, 2);
  const [runs24h = 0, fails24h = 0] = sumBuckets(test.hours, currentHour - 24, currentHour, 2);
  return {
    test,
    codeowners: ownersOf(context.rules, test.file),
    quarantine: quarantineSetting(test, context.settings),
    failureRate7d: rate(fails7d, runs7d),
    failureRate24h: rate(fails24h, runs24h),
    pullRequestsImpacted7d: new Set(test.prFailures.filter(([, at]) => at > now - 7 * DAY_MS).map(([pr]) => pr)).size,
  };
}

/** Resolves the page token (or starts a walk at the current snapshot) and returns the page's ids with its info. */
function page(
  context: ListingContext,
  query: PageQuery,
  secret: Buffer,
  queryParts: unknown[],
  idsAt: (snapshot: number) => string[],
): { ids: string[]; info: PageInfo; snapshot: number } {
  const hash = queryHash([context.org, context.repoId, query.pageSize, ...queryParts]);
  const state = query.pageToken === '' ? undefined : decodePageToken(secret, query.pageToken, hash);
  const snapshot = state?.n ?? context.repo?.seq ?? 0;
  const ids = context.repo === undefined ? [] : idsAt(snapshot);
  const { page: pageIds, info } = paginate(ids, query.pageSize, state?.a ?? '', (after) =>
    encodePageToken(secret, { q: hash, n: snapshot, a: after }),
  );
  return { ids: pageIds, info, snapshot };
}

function loadTests(context: ListingContext, ids: readonly string[]): FlakyTestRecord[] {
  return ids.flatMap((id) => context.tx.get('flakyTests', [context.org, context.repoId, id]) ?? []);
}

type FailureCounts = Map<string, { count: number; lastAt: number }>;

/** Adds one `flakyFailures` entry's messages to a test's counts (failures beyond the kept messages are "other"). */
function addFailures(messages: FailureCounts, value: { n: number; m: [string, number][] }, at: number): void {
  const listed = value.m.reduce((sum, [, count]) => sum + count, 0);
  const entries: [string, number][] = listed < value.n ? [...value.m, ['(other failures)', value.n - listed]] : value.m;
  for (const [summary, count] of entries) {
    const seen = messages.get(summary);
    messages.set(summary, { count: (seen?.count ?? 0) + count, lastAt: Math.max(seen?.lastAt ?? 0, at) });
  }
}

function mostCommon(messages: FailureCounts | undefined): FailureSummary[] {
  return [...(messages ?? new Map())]
    .map(([summary, { count, lastAt }]) => ({ summary, count, lastAt }))
    .sort((a, b) => b.count - a.count || b.lastAt - a.lastAt || (a.summary < b.summary ? -1 : 1))
    .slice(0, MOST_COMMON_FAILURES);
}

export function listFailing(
  tx: ReadTx,
  org: string,
  query: FailingQuery,
  secret: Buffer,
  now: number,
): Listing<FailingRow> {
  const context = contextFor(tx, org, query.repo, now);
  const failures = new Map<string, FailureCounts>();
  const { ids, info } = page(context, query, secret, ['failing', query.start, query.end], (snapshot) => {
    const prefix = [org, context.repoId];
    for (const { key, value } of tx.scan('flakyFailures', {
      prefix,
      start: [...prefix, query.start],
      end: [...prefix, query.end],
    })) {
      const [, , at, seq, testId] = key as [string, string, number, number, string];
      if (seq > snapshot) continue;
      let messages = failures.get(testId);
      if (messages === undefined) failures.set(testId, (messages = new Map()));
      addFailures(messages, value, at);
    }
    return [...failures.keys()].sort();
  });
  const rows = loadTests(context, ids).map(
    (test): FailingRow => ({ ...testRow(context, test), mostCommonFailures: mostCommon(failures.get(test.id)) }),
  );
  return { rows, page: info };
}

/**
 * One test of the organization, wherever its repository (the id names it): its row as the failing listing shows
 * it, with its failures of the last 7 days. Undefined when the organization has no such test.
 */
export function testDetail(
  tx: ReadTx,
  org: string,
  testId: string,
  now: number,
): { repo: RepoRef; row: FailingRow } | undefined {
  for (const { value: repo } of tx.scan('flakyRepos', { prefix: [org] })) {
    const context = contextFor(tx, org, repo.repo, now);
    const test = tx.get('flakyTests', [org, context.repoId, testId]);
    if (test === undefined) continue;
    const messages: FailureCounts = new Map();
    const prefix = [org, context.repoId];
    for (const { key, value } of tx.scan('flakyFailures', { prefix, start: [...prefix, now - 7 * DAY_MS] })) {
      if (key[4] === testId) addFailures(messages, value, key[2] as number);
    }
    return { repo: repo.repo, row: { ...testRow(context, test), mostCommonFailures: mostCommon(messages) } };
  }
  return undefined;
}

export function listUnhealthy(
  tx: ReadTx,
  org: string,
  query: UnhealthyQuery,
  secret: Buffer,
  now: number,
): Listing<TestRow> {
  const context = contextFor(tx, org, query.repo, now);
  const list = query.status === 'BROKEN' ? 'broken' : 'flaky';
  const { ids, info } = page(context, query, secret, ['unhealthy', list], (snapshot) =>
    membersAt(tx, { org, repoId: context.repoId, list }, snapshot).map((member) => member.testId),
  );
  return { rows: loadTests(context, ids).map((test) => testRow(context, test)), page: info };
}

export function listQuarantined(
  tx: ReadTx,
  org: string,
  query: PageQuery,
  secret: Buffer,
  now: number,
): Listing<QuarantinedRow> {
  const context = contextFor(tx, org, query.repo, now);
  const since = new Map<string, number>();
  const { ids, info } = page(context, query, secret, ['quarantined'], (snapshot) =>
    membersAt(tx, { org, repoId: context.repoId, list: 'quarantined' }, snapshot).map((member) => {
      since.set(member.testId, member.since);
      return member.testId;
    }),
  );
  const rows = loadTests(context, ids).map((test): QuarantinedRow => {
    const row = testRow(context, test);
    return {
      ...row,
      // A row of the snapshot keeps its place even if the test left quarantine since; it shows how it was quarantined.
      quarantine:
        row.quarantine ?? (test.override?.setting === 'ALWAYS_QUARANTINE' ? 'ALWAYS_QUARANTINE' : 'AUTO_QUARANTINE'),
      quarantinedAt: test.quarantinedAt ?? since.get(test.id) ?? test.status.at,
    };
  });
  return { rows, page: info };
}
