/**
 * Properties of the engine on random workloads (submissions, cancels, restarts, configuration changes, CI outcomes
 * and time passing) on a virtual clock: no PR is lost, nothing merges untested, equal priorities merge in order, the
 * same workload gives the same event log, and a crash at any step followed by a restore ends as if it never happened.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { isEnqueued } from '../../machines/vocabulary.js';
import { EngineError } from '../../engine/model/errors.js';
import { QueueHarness } from './queueHarness.js';
import { applyStep, expectWorkingSetCurrent, type WorkloadStep } from './workload.js';

type Action = WorkloadStep;

const number = fc.integer({ min: 1, max: 10 });
const action = (priorities: boolean): fc.Arbitrary<Action> =>
  fc.oneof(
    {
      weight: 5,
      arbitrary: fc.record(
        {
          kind: fc.constant('submit' as const),
          number,
          ...(priorities ? { priority: fc.constantFrom('high' as const, 'urgent' as const) } : {}),
        },
        { requiredKeys: ['kind', 'number'] },
      ),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), number }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('restart' as const), number }) },
    {
      weight: 8,
      arbitrary: fc.record({ kind: fc.constant('report' as const), pick: fc.nat(5), success: fc.boolean() }),
    },
    {
      weight: 1,
      arbitrary: fc.record({ kind: fc.constant('advance' as const), minutes: fc.integer({ min: 1, max: 40 }) }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('configure' as const),
        patch: fc.oneof(
          fc.record({ concurrency: fc.integer({ min: 1, max: 3 }) }),
          fc.record({ batch: fc.boolean(), batchingMinSize: fc.integer({ min: 1, max: 4 }) }),
          fc.record({ state: fc.constantFrom('running', 'paused', 'draining') }),
          fc.record({ canOptimisticallyMerge: fc.boolean(), pendingFailureDepth: fc.integer({ min: 1, max: 2 }) }),
          fc.record({
            optimizationMode: fc.constantFrom('off', 'bisection_skip_redundant_tests', 'speculate_by_likelihood'),
            bisectionConcurrency: fc.integer({ min: 1, max: 2 }),
          }),
          fc.record({ adaptiveWindow: fc.boolean(), adaptiveWindowFloor: fc.integer({ min: 1, max: 2 }) }),
        ),
      }),
    },
  );

const settings = fc.record({
  concurrency: fc.integer({ min: 1, max: 3 }),
  batch: fc.boolean(),
  batchingMinSize: fc.integer({ min: 2, max: 4 }),
  batchingMaxWaitTimeMinutes: fc.integer({ min: 1, max: 20 }),
  testingTimeoutMinutes: fc.integer({ min: 30, max: 120 }),
});

/** Runs a workload; `crashAfter` stops the engine after that many committed transactions and restores it. */
async function play(
  initial: Record<string, unknown>,
  actions: Action[],
  crashAfter?: number,
): Promise<{ h: QueueHarness; submitted: Set<number> }> {
  const h = new QueueHarness();
  const recover = h.crashAfter(crashAfter);
  await h.create(initial);
  await recover();
  const submitted = new Set<number>();
  for (const step of actions) {
    try {
      applyStep(h, step);
      if (step.kind === 'submit') submitted.add(step.number);
    } catch (error) {
      // Refusals (a PR not in the queue, a draining queue) are part of the workload; anything else is a failure.
      if (!(error instanceof EngineError)) throw error;
    }
    await h.engine.settle();
    await recover();
  }
  return { h, submitted };
}

function snapshotOf(h: QueueHarness) {
  return h.store.read((tx) => ({
    queue: tx.get('queues', [h.queueId]),
    prs: [...tx.scan('pullRequests', { prefix: [h.queueId] })].map((entry) => entry.value),
    runs: [...tx.scan('testRuns', { prefix: [h.queueId] })].map((entry) => entry.value),
    timers: [...tx.scan('timers', { prefix: [h.queueId] })],
    outbox: [...tx.scan('outbox', { prefix: [h.queueId] })],
  }));
}

function checkInvariants(h: QueueHarness, submitted: Set<number>): void {
  expectWorkingSetCurrent(h);
  const { queue, prs, runs } = snapshotOf(h);
  if (queue === undefined) throw new Error('the queue is gone');
  const listed = [...queue.runtime.lineup, ...queue.runtime.waiting];
  expect(new Set(listed).size).toBe(listed.length);
  const byNumber = new Map(prs.map((pr) => [pr.number, pr]));
  // No PR is lost: every submitted PR has a record; an enqueued one is listed once; a listed one is enqueued.
  for (const number of submitted) {
    const pr = byNumber.get(number);
    expect(pr, `PR ${number}`).toBeDefined();
    expect(listed.includes(number), `PR ${number} in ${pr?.state}`).toBe(isEnqueued(pr!.state));
  }
  const runsById = new Map(runs.map((run) => [run.id, run]));
  for (const run of runs) {
    expect(queue.runtime.activeRuns.includes(run.id)).toBe(run.status === 'in_progress');
  }
  // Nothing merges that a passing run did not test, or vouch for by containing it...
  const order = h.mergeOrder();
  const mergeIndex = new Map(order.map((number, k) => [byNumber.get(number)?.mergedSha ?? '', k + 1]));
  for (const pr of prs.filter((candidate) => candidate.state === 'MERGED')) {
    // ...and it merges onto exactly the tree that run tested: the PRs merged since the run began are the ones it
    // tested it on top of, in order.
    const decider = runsById.get(pr.mergedBy ?? pr.runId ?? '');
    if (decider !== undefined && pr.mergedBy !== 'direct') {
      const tested = [...decider.basePrs, ...decider.prs];
      const onTopOf = tested.slice(0, tested.indexOf(pr.number));
      const since = order.slice(mergeIndex.get(decider.baseSha) ?? 0, order.indexOf(pr.number));
      expect(since, `#${pr.number} merged after run ${decider.id} on [${tested.join()}]`).toEqual(onTopOf);
    }
    expect(pr.mergedBy).not.toBe('direct');
    if (pr.mergedBy === null) {
      const run = runsById.get(pr.runId ?? '');
      expect(run?.status, `PR ${pr.number} merged after run ${pr.runId}`).toBe('succeeded');
      expect(run?.prs).toContain(pr.number);
    } else {
      const voucher = runsById.get(pr.mergedBy);
      expect(voucher?.status).toBe('succeeded');
      expect(voucher?.basePrs).toContain(pr.number);
    }
  }
}

describe('engine properties', () => {
  test('no PR is lost, nothing merges untested, equal priorities merge in submission order but for rescued PRs', async () => {
    let merges = 0;
    let failures = 0;
    let rescues = 0;
    await fc.assert(
      fc.asyncProperty(
        settings,
        fc.array(action(false), { minLength: 10, maxLength: 50 }),
        async (initial, actions) => {
          const { h, submitted } = await play(initial, actions);
          checkInvariants(h, submitted);
          const merged = snapshotOf(h)
            .prs.filter((pr) => pr.state === 'MERGED')
            .sort((a, b) => Number(a.mergedSha !== null) - Number(b.mergedSha !== null));
          merges += merged.length;
          failures += snapshotOf(h).prs.filter((pr) => pr.state === 'FAILED').length;
          // A PR a bisection found good goes back to the main line behind the runs in progress: it may merge after PRs
          // that came after it. Every other PR keeps its place.
          const rescued = new Set(
            h
              .timeline()
              .filter((entry) => entry.value.event === 'rescued')
              .map((entry) => Number(entry.key[1])),
          );
          rescues += rescued.size;
          const order = h
            .mergeOrder()
            .filter((number) => !rescued.has(number))
            .map((number) => merged.find((pr) => pr.number === number)?.submittedSeq ?? -1);
          expect(order).toEqual([...order].sort((a, b) => a - b));
        },
      ),
      { numRuns: 200 },
    );
    // The workloads exercise what the properties speak of.
    expect(merges).toBeGreaterThan(100);
    expect(failures).toBeGreaterThan(20);
    expect(rescues).toBeGreaterThan(5);
    // Under a load of 13–30 on two cores this took 26–52 s: a budget, not the default 30 s.
  });

  test('with priorities and skipTheLine in the mix, nothing is lost and nothing merges untested', async () => {
    await fc.assert(
      fc.asyncProperty(settings, fc.array(action(true), { minLength: 1, maxLength: 40 }), async (initial, actions) => {
        const { h, submitted } = await play(initial, actions);
        checkInvariants(h, submitted);
      }),
      { numRuns: 100 },
    );
  });

  test('the same workload gives the same event log', async () => {
    await fc.assert(
      fc.asyncProperty(settings, fc.array(action(true), { minLength: 1, maxLength: 30 }), async (initial, actions) => {
        const first = await play(initial, actions);
        const second = await play(initial, actions);
        expect(second.h.engine.eventLog(second.h.queueId)).toEqual(first.h.engine.eventLog(first.h.queueId));
      }),
      { numRuns: 25 },
    );
  });

  test('a crash after any transaction, then a restore, ends exactly as the run without the crash', async () => {
    let crashes = 0;
    await fc.assert(
      fc.asyncProperty(
        settings,
        fc.array(action(false), { minLength: 1, maxLength: 30 }),
        fc.nat(),
        async (initial, actions, pick) => {
          const clean = await play(initial, actions);
          // A crash right after one of the transactions the clean run made, any of them.
          const crashAfter = 1 + (pick % clean.h.engine.eventLog(clean.h.queueId).length);
          const crashed = await play(initial, actions, crashAfter);
          crashes += crashed.h.restores;
          expect(snapshotOf(crashed.h)).toEqual(snapshotOf(clean.h));
          checkInvariants(crashed.h, crashed.submitted);
        },
      ),
      { numRuns: 150 },
    );
    // Every workload crashed once.
    expect(crashes).toBe(150);
  });

  test('a crash while CI stays silent: run deadlines survive the restore and fire as in the run without the crash', async () => {
    // CI that rarely answers and time that passes in long steps, so runs reach their testing timeout: a deadline kept
    // only in memory would be lost at the restore and the crashed run would never time out.
    const silent = fc.oneof(
      { weight: 3, arbitrary: fc.record({ kind: fc.constant('submit' as const), number }) },
      {
        weight: 1,
        arbitrary: fc.record({ kind: fc.constant('report' as const), pick: fc.nat(5), success: fc.boolean() }),
      },
      {
        weight: 3,
        arbitrary: fc.record({ kind: fc.constant('advance' as const), minutes: fc.integer({ min: 10, max: 60 }) }),
      },
    );
    const short = fc.record({
      concurrency: fc.integer({ min: 1, max: 3 }),
      batch: fc.boolean(),
      testingTimeoutMinutes: fc.integer({ min: 30, max: 45 }),
    });
    let timedOut = 0;
    await fc.assert(
      fc.asyncProperty(
        short,
        fc.array(silent, { minLength: 5, maxLength: 25 }),
        fc.nat(),
        async (initial, actions, pick) => {
          const clean = await play(initial, actions);
          timedOut += snapshotOf(clean.h).runs.filter(
            (run) => run.status === 'cancelled' && /testing timeout/.test(run.reason ?? ''),
          ).length;
          const crashAfter = 1 + (pick % clean.h.engine.eventLog(clean.h.queueId).length);
          const crashed = await play(initial, actions, crashAfter);
          expect(snapshotOf(crashed.h)).toEqual(snapshotOf(clean.h));
          checkInvariants(crashed.h, crashed.submitted);
        },
      ),
      {
        numRuns: 100,
        examples: [
          // A batch timer and a run's deadline due at the same minute: after the restore they fired the other way round
          // (in the order they were re-armed), so the crashed run started a run the clean one did not.
          [
            { concurrency: 2, batch: true, testingTimeoutMinutes: 34 },
            [
              { kind: 'submit', number: 2 },
              { kind: 'advance', minutes: 34 },
              { kind: 'submit', number: 1 },
              { kind: 'advance', minutes: 10 },
              { kind: 'submit', number: 1 },
              { kind: 'advance', minutes: 10 },
              { kind: 'advance', minutes: 10 },
              { kind: 'report', pick: 0, success: false },
            ],
            884392255,
          ],
        ],
      },
    );
    // The workloads reach the deadlines the property speaks of.
    expect(timedOut).toBeGreaterThan(20);
  });
});
