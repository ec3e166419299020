/**
 * listPullRequests reads only what its filter can match (engine/queueReads.ts `readListingCandidates`): the enqueued
 * PRs for enqueued states, the index of ended PRs for a time range, every record otherwise. Every filter must page
 * exactly as the listing over every record does, at the range's edges too, and with the index incomplete.
 */
import { describe, expect, test } from 'vitest';
import { ENDED_INDEX_COMPLETE, endedEntry } from '../../engine/history/endedIndex.js';
import { pagePullRequests, type PullRequestQuery } from '../../engine/pullRequestListing.js';
import { createMemoryStore } from '../../engine/store/index.js';
import { FINAL_PULL_REQUEST_STATES, PULL_REQUEST_STATES, type PullRequestState } from '../../machines/vocabulary.js';
import { KEY, QueueHarness } from './queueHarness.js';

async function queueWithHistory(): Promise<QueueHarness> {
  const h = new QueueHarness(createMemoryStore());
  await h.create({ concurrency: 1 });
  await h.submit(1, 2, 3);
  await h.pass(1);
  await h.advanceMinutes(2);
  await h.fail(2);
  await h.advanceMinutes(3);
  h.engine.cancelPullRequest(KEY, 3);
  await h.engine.settle();
  await h.advanceMinutes(1);
  await h.submit(4, 5, 6, 7);
  await h.pass(4);
  await h.advanceMinutes(4);
  // 3 again: its ended entry leaves the index while it is enqueued.
  await h.submit(3);
  await h.engine.settle();
  return h;
}

const STATE_SETS: (readonly PullRequestState[] | undefined)[] = [
  undefined,
  [],
  ['NOT_READY'],
  ['PENDING', 'TESTING', 'TESTS_PASSED', 'NOT_READY', 'PENDING_FAILURE'],
  ['MERGED'],
  ['FAILED', 'CANCELLED'],
  ['MERGED', 'TESTING'],
  [...PULL_REQUEST_STATES],
];

describe('listPullRequests reads only what its filter can match', () => {
  test('every filter pages exactly as over every record, at the edges of its range, with the index whole or not', async () => {
    const h = await queueWithHistory();
    const every = h.engine.listPullRequests(KEY);
    const concluded = every
      .filter((pr) => FINAL_PULL_REQUEST_STATES.includes(pr.state))
      .map((pr) => Date.parse(pr.stateChangedAt));
    expect(concluded.length).toBeGreaterThanOrEqual(3);
    // Bounds on, just before and just after each conclusion, and none.
    // Bounds before 1970 and past any date too (an index key is ms since 1970), and none.
    const bounds = [
      undefined,
      Date.parse('0400-02-29T22:38:00Z'),
      -1,
      8.64e15,
      ...concluded.flatMap((at) => [at - 1, at, at + 1]),
    ];
    const check = () => {
      for (const states of STATE_SETS) {
        for (const since of bounds) {
          for (const until of [
            undefined,
            ...bounds.filter((at) => at === undefined || since === undefined || at >= since),
          ]) {
            const filter = {
              ...(states === undefined ? {} : { states }),
              ...(since === undefined ? {} : { since }),
              ...(until === undefined ? {} : { until }),
            };
            for (const take of [1, 100]) {
              const query: PullRequestQuery = { ...filter, take };
              const label = JSON.stringify(query);
              let cursor: string | undefined;
              do {
                const page = pagePullRequests(h.engine.listPullRequests(KEY, filter), {
                  ...query,
                  ...(cursor === undefined ? {} : { cursor }),
                });
                expect(page, label).toEqual(
                  pagePullRequests(every, { ...query, ...(cursor === undefined ? {} : { cursor }) }),
                );
                cursor = page === 'unknown cursor' ? undefined : page.nextCursor;
              } while (cursor !== undefined);
            }
          }
        }
      }
    };
    check();
    // A time that is not one lists nothing, as over every record.
    for (const filter of [{ since: Number.NaN }, { until: Number.NaN }]) {
      expect(pagePullRequests(h.engine.listPullRequests(KEY, filter), { ...filter, take: 10 })).toEqual(
        pagePullRequests(every, { ...filter, take: 10 }),
      );
    }
    // A store whose index could not be filled: the listing reads every record and says the same.
    h.store.write((tx) => tx.remove('meta', ENDED_INDEX_COMPLETE));
    check();
  });

  test('enqueued states read the queue only, and a range only the PRs that concluded in it', async () => {
    const h = await queueWithHistory();
    const every = h.engine.listPullRequests(KEY);
    const enqueued = every.filter((pr) => !FINAL_PULL_REQUEST_STATES.includes(pr.state));
    expect(enqueued.length).toBeGreaterThan(0);
    expect(
      h.engine
        .listPullRequests(KEY, { states: ['NOT_READY', 'TESTING'] })
        .map((pr) => pr.number)
        .sort(),
    ).toEqual(enqueued.map((pr) => pr.number).sort());
    const merged1 = Date.parse(h.pr(1).stateChangedAt);
    expect(h.engine.listPullRequests(KEY, { since: merged1, until: merged1 }).map((pr) => pr.number)).toEqual([1]);
    expect(h.engine.listPullRequests(KEY, { since: merged1 + 1 }).map((pr) => pr.number)).not.toContain(1);
  });
});

describe('a PR named by its branch reads the queue, then the index of ended PRs', () => {
  test('the enqueued PR of the branch, else the one that ended last; with entries indexed before the branch, and with the index incomplete', async () => {
    const h = await queueWithHistory();
    // PRs 1 and 2 (ended, 2 last) and 5 (enqueued) on one branch, as a branch reused after its PR ended would be.
    const onBranch = (numbers: number[]) =>
      h.store.write((tx) => {
        for (const number of numbers) {
          const record = { ...tx.get('pullRequests', [h.queueId, number])!, headBranch: 'feature/reused' };
          tx.put('pullRequests', [h.queueId, number], record);
          if (FINAL_PULL_REQUEST_STATES.includes(record.state))
            tx.put('endedPullRequests', [h.queueId, Date.parse(record.stateChangedAt), number], endedEntry(tx, record));
        }
      });
    onBranch([1, 2]);
    expect(h.engine.pullRequestOfBranch(KEY, 'feature/reused')).toBe(2);
    expect(h.engine.pullRequestOfBranch(KEY, 'feature/none')).toBeUndefined();
    expect(h.engine.headBranchOf(KEY, 1)).toBe('feature/reused');
    expect(h.engine.headBranchOf(KEY, 999)).toBeUndefined();
    // Entries indexed before they held the branch: the records say it.
    h.store.write((tx) => {
      for (const { key, value } of [...tx.scan('endedPullRequests')]) {
        const { headBranch: _dropped, ...legacy } = value;
        tx.put('endedPullRequests', key, legacy);
      }
    });
    expect(h.engine.pullRequestOfBranch(KEY, 'feature/reused')).toBe(2);
    h.store.write((tx) => tx.remove('meta', ENDED_INDEX_COMPLETE));
    expect(h.engine.pullRequestOfBranch(KEY, 'feature/reused')).toBe(2);
    // An enqueued PR of the branch comes first.
    h.engine.stop();
    onBranch([5]);
    const again = h.boot();
    expect(again.pullRequestOfBranch(KEY, 'feature/reused')).toBe(5);
  });
});
