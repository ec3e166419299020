/** The adaptive window (as Zuul's): main-line runs in flight grow by one per pass, halve per failure, within bounds. */
import { describe, expect, test } from 'vitest';
import { adaptWindow, mainWindowOf, newRuntime, DEFAULT_SETTINGS } from '../../engine/model/queues.js';
import { plan } from '../../engine/planner/planner.js';
import { EVIDENCE } from '../../engine/planner/window.js';
import { input, pr } from '../planner/inputs.js';
import { QueueHarness } from './queueHarness.js';

const mains = (h: QueueHarness) => h.activeRuns().filter((run) => run.kind === 'main').length;

describe('adaptive window', () => {
  test('grows by one on a pass, halves on a failure, between the floor and concurrency', () => {
    const settings = { ...DEFAULT_SETTINGS, concurrency: 8, adaptiveWindow: true, adaptiveWindowFloor: 2 };
    const runtime = newRuntime();
    expect(mainWindowOf(settings, runtime)).toBe(8);
    const seen: number[] = [];
    for (const passed of [false, false, false, true, true, false, true, true, true, true, true, true, true]) {
      adaptWindow(settings, runtime, passed);
      seen.push(mainWindowOf(settings, runtime));
    }
    expect(seen).toEqual([4, 2, 2, 3, 4, 2, 3, 4, 5, 6, 7, 8, 8]);
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

  test('in the engine: a failure halves the runs in flight, passes widen them again, and a restart keeps the window', async () => {
    const h = new QueueHarness();
    await h.create({ concurrency: 4, adaptiveWindow: true, adaptiveWindowFloor: 1 });
    await h.submit(1, 2, 3, 4, 5, 6, 7, 8);
    expect(mains(h)).toBe(4);
    await h.fail(1);
    // 1 is kicked; the window halves to 2: 2 and 3 are tested again without it, 4 waits.
    expect(h.states(1)).toEqual(['FAILED']);
    expect(mains(h)).toBe(2);
    await h.crashAndRestore();
    expect(mains(h)).toBe(2);
    await h.pass(2);
    // 2 merges, the window grows to 3: 3 is testing, 4 and 5 start.
    expect(mains(h)).toBe(3);
    await h.pass(3);
    expect(mains(h)).toBe(4);
    expect(h.mergeOrder()).toEqual([2, 3]);
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
    const numbers = Array.from({ length: EVIDENCE + 8 }, (_, k) => k + 1);
    await h.submit(...numbers);
    for (const number of numbers.slice(0, EVIDENCE)) await h.pass(number);
    expect(mains(h)).toBe(4);
    // One failure in EVIDENCE + 1 verdicts: a window of 4 is far shallower than the useful depth; it does not halve.
    await h.fail(EVIDENCE + 1);
    expect(h.states(EVIDENCE + 1)).toEqual(['FAILED']);
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
