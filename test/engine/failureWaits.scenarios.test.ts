/**
 * The failure policy's waits, as the PR machine is told them (its named guards, drawn on the chart): a run behind a
 * failing PR says whether the policy still awaits runs behind it (`awaitsRunsBehind`), and a run that failed on a base
 * holding a PR that had failed first requeues its PRs to wait for that failure (`awaitsFailureBelow`).
 */
import { expect, test, vi } from 'vitest';
import type { PullRequestEvent } from '../../machines/index.js';
import { QueueHarness } from './queueHarness.js';

/** Every event sent to a PR machine, with the PR's number. */
const sent = vi.hoisted(() => [] as { number: number; event: { type: string } }[]);

vi.mock('../../engine/model/machineSnapshots.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../engine/model/machineSnapshots.js')>();
  return {
    ...actual,
    step: (...args: Parameters<typeof actual.step>) => {
      const [machine, snapshot, event] = args;
      if (machine === 'pullRequest') sent.push({ number: (snapshot.context as { number: number }).number, event });
      return actual.step(...args);
    },
  };
});

test('runs behind a failing PR say when the wait for them ends; a failure on top of it waits for it to settle', async () => {
  const h = new QueueHarness();
  await h.create({ concurrency: 3, pendingFailureDepth: 2 });
  await h.submit(1, 2, 3);
  await h.fail(1);
  // #2 and #3 are tested on top of #1, which waits for two runs behind it.
  expect(h.states(1, 2, 3)).toEqual(['PENDING_FAILURE', 'TESTING', 'TESTING']);
  await h.fail(2);
  await h.fail(3);
  const of = (number: number, type: PullRequestEvent['type']) =>
    sent.filter((each) => each.number === number && each.event.type === type).map((each) => each.event);
  expect(sent.length).toBeGreaterThan(0);
  expect(of(1, 'RUN_BEHIND_ENDED')).toEqual([
    { type: 'RUN_BEHIND_ENDED', failed: true, awaitsMore: true },
    { type: 'RUN_BEHIND_ENDED', failed: true },
  ]);
  expect(of(2, 'REQUEUE')[0]).toMatchObject({ type: 'REQUEUE', failedFirst: 1 });
});
