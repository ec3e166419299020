/**
 * The adaptive window (as Zuul's): main-line runs in flight grow by one per pass and halve per failure, within bounds,
 * but never below the depth that the verdicts seen make useful (engine/planner/window.ts).
 */
import { describe, expect, test } from 'vitest';
import { adaptWindow, mainWindowOf, newRuntime, DEFAULT_SETTINGS } from '../../engine/model/queues.js';
import { plan } from '../../engine/planner/planner.js';
import { usefulDepth } from '../../engine/planner/window.js';
import { input, pr } from '../planner/inputs.js';
import { QueueHarness } from './queueHarness.js';

const mains = (h: QueueHarness) => h.activeRuns().filter((run) => run.kind === 'main').length;

describe('adaptive window', () => {
  test('grows by one on a pass, shrinks on a failure down to the useful depth, between the floor and concurrency', () => {
    const settings = { ...DEFAULT_SETTINGS, concurrency: 16, adaptiveWindow: true, adaptiveWindowFloor: 2 };
    const runtime = newRuntime();
    expect(mainWindowOf(settings, runtime)).toBe(16);
    // A queue whose every run fails: the first 20 failures are too few to tell (the prior is one in twenty), then the
    // window follows the depth they make useful down.
    const windows: number[] = [];
    for (let k = 0; k < 30; k++) {
      adaptWindow(settings, runtime, false);
      windows.push(mainWindowOf(settings, runtime));
      expect(mainWindowOf(settings, runtime)).toBe(Math.max(2, Math.min(16, usefulDepth(runtime.windowVerdicts, 16))));
    }
    expect(windows.slice(0, 20)).toEqual(Array(20).fill(16));
    expect(windows.at(-1)).toBe(12);
    const after: number[] = [];
    for (const passed of [true, true, false, true, true, true, true, true, true]) {
      adaptWindow(settings, runtime, passed);
      after.push(mainWindowOf(settings, runtime));
    }
    expect(after).toEqual([13, 14, 12, 13, 14, 15, 16, 16, 16]);
    // A floor above the useful depth holds.
    const floored = { ...settings, adaptiveWindowFloor: 14 };
    for (let k = 0; k < 100; k++) adaptWindow(floored, runtime, false);
    expect(usefulDepth(runtime.windowVerdicts, 16)).toBeLessThan(14);
    expect(mainWindowOf(floored, runtime)).toBe(14);
  });

  test('off by default: the window is concurrency whatever happened', () => {
    const runtime = newRuntime();
    const settings = { ...DEFAULT_SETTINGS, concurrency: 5 };
    adaptWindow(settings, runtime, false);
    expect(runtime.window).toBeUndefined();
    expect(mainWindowOf(settings, { window: 1 })).toBe(5);
  });

  test('the planner starts no more main-line runs than the window', () => {
    const base = input(
      [1, 2, 3, 4].map((number) => pr(number)),
      { concurrency: 4 },
    );
    expect(plan(base).decisions).toHaveLength(4);
    expect(plan({ ...base, window: 2 }).decisions).toHaveLength(2);
  });

  test('in the engine: the first failure costs no runs, a record of failures shrinks the window, passes widen it, a restart keeps it', async () => {
    const h = new QueueHarness();
    await h.create({ concurrency: 16, adaptiveWindow: true, adaptiveWindowFloor: 1 });
    const numbers = Array.from({ length: 60 }, (_, k) => k + 1);
    await h.submit(...numbers);
    expect(mains(h)).toBe(16);
    await h.fail(1);
    // Nothing is known of the queue yet: 2 to 17 are tested again without 1, all of them.
    expect(h.states(1)).toEqual(['FAILED']);
    expect(mains(h)).toBe(16);
    for (const number of numbers.slice(1, 30)) await h.fail(number);
    const shrunk = mains(h);
    expect(shrunk).toBeLessThan(16);
    await h.crashAndRestore();
    expect(mains(h)).toBe(shrunk);
    await h.pass(31);
    expect(mains(h)).toBe(shrunk + 1);
    await h.pass(32);
    expect(mains(h)).toBe(shrunk + 2);
    expect(h.mergeOrder()).toEqual([31, 32]);
  });

  test('only a verdict on a settled base counts toward the failure rate: a failure on top of a PR still testing may be its', async () => {
    const h = new QueueHarness();
    await h.create({ concurrency: 4, adaptiveWindow: true });
    await h.submit(1, 2, 3, 4, 5, 6);
    const verdicts = () => h.store.read((tx) => tx.get('queues', [h.queueId]))?.runtime.windowVerdicts;
    await h.fail(3);
    expect(verdicts()).toBeUndefined();
    await h.pass(1);
    expect(verdicts()).toEqual([1, 0]);
    await h.pass(2);
    expect(verdicts()).toEqual([2, 0]);
  });

  test('a failure that resets nothing (the last run of the window) does not shrink it', async () => {
    const h = new QueueHarness();
    await h.create({ concurrency: 3, adaptiveWindow: true });
    await h.submit(1, 2, 3);
    await h.pass(1);
    await h.pass(2);
    await h.fail(3);
    await h.submit(4, 5, 6, 7);
    expect(h.states(3)).toEqual(['FAILED']);
    expect(mains(h)).toBe(3);
  });

  test('once the queue has a history of few failures, a failure that resets runs keeps every run that is still useful', async () => {
    const h = new QueueHarness();
    await h.create({ concurrency: 4, adaptiveWindow: true });
    const numbers = Array.from({ length: 28 }, (_, k) => k + 1);
    await h.submit(...numbers);
    for (const number of numbers.slice(0, 20)) await h.pass(number);
    expect(mains(h)).toBe(4);
    // One failure in 21 verdicts: a window of 4 is far shallower than the useful depth; it does not shrink.
    await h.fail(21);
    expect(h.states(21)).toEqual(['FAILED']);
    expect(mains(h)).toBe(4);
  });

  test('without it, the same failure restarts the whole window', async () => {
    const h = new QueueHarness();
    await h.create({ concurrency: 4 });
    await h.submit(1, 2, 3, 4, 5, 6, 7, 8);
    await h.fail(1);
    expect(mains(h)).toBe(4);
  });
});
