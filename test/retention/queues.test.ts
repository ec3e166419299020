/** Retention of a queue's records (engine/retention): what goes, what stays, and that the engine stays consistent. */
import { describe, expect, test } from 'vitest';
import { exportEventLog, formatEventLog, parseEventLog, replayEventLog } from '../../engine/runtime/eventLog.js';
import { RetentionSweep } from '../../engine/retention/sweep.js';
import type { RetentionSettings } from '../../engine/retention/settings.js';
import { KEY, QueueHarness } from '../engine/queueHarness.js';
import { expectWorkingSetCurrent } from '../engine/workload.js';

const DAY_MIN = 24 * 60;

function sweeper(h: QueueHarness, settings: Partial<RetentionSettings> = {}): RetentionSweep {
  return new RetentionSweep({
    engine: h.engine,
    store: h.store,
    clock: h.scheduler,
    settings: { batch: 2, ...settings },
  });
}

/** Merges 1 and 2, fails 3, cancels 4; 100 days later 5 and 6 are submitted and 5 is under test. */
async function history(): Promise<QueueHarness> {
  const h = new QueueHarness();
  await h.create({ concurrency: 1 });
  await h.submit(1);
  await h.pass(1);
  await h.submit(2, 3, 4);
  await h.pass(2);
  await h.fail(3);
  h.engine.cancelPullRequest(KEY, 4);
  await h.engine.settle();
  expect(h.states(1, 2, 3, 4)).toEqual(['MERGED', 'MERGED', 'FAILED', 'CANCELLED']);
  await h.advanceMinutes(100 * DAY_MIN);
  await h.submit(5, 6);
  return h;
}

describe('retention of ended PRs, runs and events', () => {
  test('ended PRs older than the window go with their timelines and runs; enqueued ones and recent ones stay', async () => {
    const h = await history();
    const runsBefore = h.runs().length;
    const report = await sweeper(h, { eventsDays: 0 }).sweep();
    expect(report.queues.prs).toBe(4);
    expect(report.queues.runs).toBeGreaterThanOrEqual(3);
    expect(h.engine.listPullRequests(KEY).map((pr) => pr.number)).toEqual([5, 6]);
    expect(h.timeline().every((entry) => [5, 6].includes(Number(entry.key[1])))).toBe(true);
    expect(h.runs().length).toBe(runsBefore - report.queues.runs);
    expect(h.runs().every((run) => run.prs.every((number) => number >= 5))).toBe(true);
    expect(h.store.read((tx) => [...tx.scan('runsBySha')].length)).toBe(
      h.runs().filter((run) => run.testBranchSha !== '').length,
    );
    expectWorkingSetCurrent(h);
    // The queue goes on: 5 merges, then 6; a pruned PR's number may be submitted again.
    await h.pass(5);
    await h.pass(6);
    expect(h.states(5, 6)).toEqual(['MERGED', 'MERGED']);
    await h.submit(4);
    expect(h.pr(4).state).not.toBe('CANCELLED');
    expectWorkingSetCurrent(h);
    // Nothing older is left: a second sweep deletes nothing.
    expect((await sweeper(h, { eventsDays: 0 }).sweep()).queues.transactions).toBe(0);
  });

  test('a log from which only PRs and runs were pruned still replays without divergence', async () => {
    const h = await history();
    await sweeper(h, { eventsDays: 0 }).sweep();
    const log = parseEventLog(formatEventLog(exportEventLog(h.store, KEY, 'test')));
    expect(log.entries.some((entry) => entry.input.type === 'prune')).toBe(true);
    expect(log.header.startsAt).toBeUndefined();
    const result = replayEventLog(log);
    expect(result.divergence).toBeNull();
    expect(result.finalChecked).toBe(true);
  });

  test('an event log cut by retention says from where it starts, keeps the settings history, and replay refuses it clearly', async () => {
    const h = await history();
    h.engine.updateQueue(KEY, { concurrency: 2 });
    const eventsBefore = h.engine.eventLog(h.queueId).length;
    const report = await sweeper(h, { prsDays: 0 }).sweep();
    expect(report.queues.events).toBeGreaterThan(0);
    const events = h.engine.eventLog(h.queueId);
    expect(events.length).toBeLessThan(eventsBefore);
    expect(h.engine.settingsHistory(KEY).map((change) => change.change)).toEqual(['created', 'configured']);
    const queue = h.engine.getQueue(KEY).queue;
    expect(queue.eventsFrom?.seq).toBeGreaterThan(1);
    // Every event kept past the settings changes is at or after the cut, and newer than its time.
    const startsAt = queue.eventsFrom as { seq: number; before: string };
    for (const event of events) {
      if (event.input.type !== 'created' && event.input.type !== 'configured') {
        expect(event.seq >= startsAt.seq || event.at >= startsAt.before).toBe(true);
      }
    }
    const log = parseEventLog(formatEventLog(exportEventLog(h.store, KEY, 'test')));
    expect(log.header.startsAt).toEqual(startsAt);
    const result = replayEventLog(log);
    expect(result.replayed).toBe(0);
    expect(result.divergence?.reason).toMatch(/cut by retention: its events before .* are deleted/);
    expectWorkingSetCurrent(h);
    await h.pass(5);
    expect(h.pr(5).state).toBe('MERGED');
  });

  test("old ended PRs are found through the index of ended PRs: the sweep walks none of the queue's PRs", async () => {
    const h = await history();
    await h.pass(5);
    await h.pass(6);
    // Every scan of the PR records while the sweep runs is counted (the read path's transactions).
    let scanned = 0;
    const read = h.store.read.bind(h.store);
    h.store.read = (fn) =>
      read((tx) =>
        fn({
          ...tx,
          scan: ((name, options) => {
            if (name === 'pullRequests') scanned += 1;
            return tx.scan(name, options);
          }) as typeof tx.scan,
        }),
      );
    const report = await sweeper(h, { eventsDays: 0 }).sweep();
    h.store.read = read;
    expect(report.queues.prs).toBe(4);
    expect(h.engine.listPullRequests(KEY, { states: ['MERGED'] }).map((pr) => pr.number)).toEqual([5, 6]);
    expect(scanned).toBe(0);
  });

  test('nothing younger than the windows goes', async () => {
    const h = new QueueHarness();
    await h.create({ concurrency: 1 });
    await h.submit(1);
    await h.pass(1);
    await h.advanceMinutes(89 * DAY_MIN);
    const report = await sweeper(h).sweep();
    expect(report.queues).toEqual({ prs: 0, runs: 0, events: 0, transactions: 0 });
    expect(h.pr(1).state).toBe('MERGED');
  });
});
