/** `greenline sim --recommend`: the search, its budget, and what it prints. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { main } from '../../cli/main.js';
import { drawArrivals } from '../../sim/arrivals.js';
import {
  better,
  evaluate,
  formatRecommendation,
  gridFor,
  mergesPerHourWhileArriving,
  recommend,
  settingsOfSetup,
  type Evaluation,
} from '../../sim/recommend.js';
import { parseScenario } from '../../sim/scenario.js';
import { captureConsole } from '../console.js';

const input = {
  name: 'recommend',
  hours: 4,
  arrivalsPerHour: 8,
  ci: { medianMinutes: 15, p90Minutes: 20 },
  brokenRate: 0.1,
  flakeRate: 0.02,
  configs: [{ name: 'any' }],
};
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'greenline-recommend-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe('--recommend', () => {
  test('the pick is the best of its finalists, within the budget when any setup is, and no worse than the starting setup', async () => {
    const scenario = parseScenario(input);
    const arrivals = drawArrivals(scenario, 1);
    const rec = await recommend(scenario, arrivals, 1, 1.3);
    for (const other of rec.runnersUp) expect(better(1.3)(rec.best, other)).toBeLessThanOrEqual(0);
    expect(rec.best.runsPerMerge).toBeLessThanOrEqual(1.3);
    const start = await evaluate(scenario, arrivals, 1, {
      mode: 'single',
      concurrency: 4,
      batch: 'off',
      antiFlake: false,
      optimizationMode: 'off',
      adaptiveWindow: false,
    });
    if (start.runsPerMerge <= 1.3) expect(rec.best.p50).toBeLessThanOrEqual(start.p50);
    expect(settingsOfSetup({ ...rec.best.setup, batch: '8/30min' })).toMatchObject({
      batch: true,
      batchingMinSize: 8,
      batchingMaxWaitTimeMinutes: 30,
    });
  });

  test('prints the pick, the runners-up and why, and the settings to apply; --budget is checked', async () => {
    const path = join(dir, 'scenario.json');
    await writeFile(path, JSON.stringify(input));
    const io = captureConsole();
    expect(await main(['sim', path, '--recommend', '--budget', '2'])).toBe(0);
    const text = io.out.join('\n');
    expect(text).toMatch(/^recommended \(budget 2 runs per merge; \d+ simulations\):/);
    expect(text).toContain('runners-up:');
    expect(text).toMatch(/why not: P50 .* differs in /);
    expect(text).toMatch(/settings \(updateQueue\):\n {2}\{"mode":"single"/);
    const bad = captureConsole();
    expect(await main(['sim', path, '--recommend', '--budget', 'lots'])).toBe(2);
    expect(bad.err.join('\n')).toContain('--budget must be a number');
  });
});

describe('--recommend keeps up with the load (issue 28)', () => {
  const evaluation = (fields: Partial<Evaluation>): Evaluation => ({
    setup: {
      mode: 'parallel',
      concurrency: 400,
      batch: 'off',
      antiFlake: true,
      optimizationMode: 'off',
      adaptiveWindow: false,
      parallelBases: 'direct',
    },
    p50: 300,
    runsPerMerge: 2.5,
    mergedPerHour: 40,
    saturated: false,
    keepsUp: false,
    oracleMergedPerHour: 180,
    ...fields,
  });

  test('keeping up is counted in the second half of the arrivals: a time to merge is not a shortfall of throughput', () => {
    const HOUR = 3_600_000;
    // 200 PRs over two hours, one every 36 s; the oracle merges each after 30 minutes, a queue that keeps up after 47.
    const outcome = (lag: number) => ({
      endAt: 3 * HOUR,
      prs: Array.from({ length: 200 }, (_, i) => ({ state: 'MERGED' as const, leftAt: i * 36_000 + lag * 60_000 })),
    });
    const oracle = mergesPerHourWhileArriving(outcome(30), 2 * HOUR);
    const queue = mergesPerHourWhileArriving(outcome(47), 2 * HOUR);
    // Counted from the start, the same queue merged 0.79× the oracle's: (120 − 47) / (120 − 30) of it.
    expect(queue / oracle).toBeGreaterThanOrEqual(0.99);
    expect(oracle).toBeCloseTo(100, 0);
    // A queue that stopped (saturated) before the arrivals end is counted from the start: PRs 0 to 50 merged by then.
    expect(mergesPerHourWhileArriving({ ...outcome(30), endAt: HOUR }, 2 * HOUR)).toBe(51);
  });

  test('the grid reaches the concurrency the load needs, and in parallel mode both kinds of bases', () => {
    const busy = parseScenario({
      ...input,
      arrivalsPerHour: 200,
      ci: { medianMinutes: 30, p90Minutes: 60 },
      targets: { count: 1000, perPr: 3 },
    });
    const grid = gridFor(busy);
    expect(grid.concurrency).toEqual([2, 4, 8, 16, 200, 400]);
    expect(grid.parallelBases).toEqual(['transitive', 'direct']);
    expect(gridFor(parseScenario(input)).parallelBases).toEqual(['transitive']);
    expect(settingsOfSetup(evaluation({}).setup)).toMatchObject({
      mode: 'parallel',
      concurrency: 400,
      parallelBases: 'direct',
    });
  });

  test('a setup that keeps up ranks before one that does not, whatever their P50; among those behind, more merges first', () => {
    const order = better(undefined);
    expect(order(evaluation({ keepsUp: true, p50: 500 }), evaluation({ keepsUp: false, p50: 50 }))).toBeLessThan(0);
    expect(
      order(evaluation({ p50: Infinity, mergedPerHour: 60 }), evaluation({ p50: Infinity, mergedPerHour: 40 })),
    ).toBeLessThan(0);
    // Both behind: more merges per hour first, even against a lower P50 (a queue that drained after the arrivals).
    expect(
      order(
        evaluation({ keepsUp: false, p50: 900, mergedPerHour: 10 }),
        evaluation({ keepsUp: false, p50: 400, mergedPerHour: 0 }),
      ),
    ).toBeLessThan(0);
    // Both keeping up: the lower P50 first.
    expect(
      order(
        evaluation({ keepsUp: true, p50: 40, mergedPerHour: 10 }),
        evaluation({ keepsUp: true, p50: 60, mergedPerHour: 12 }),
      ),
    ).toBeLessThan(0);
  });

  test('a queue that keeps up is told apart from one that falls behind, against the oracle on the same arrivals', async () => {
    const scenario = parseScenario(input);
    const arrivals = drawArrivals(scenario, 1);
    const setup = {
      mode: 'single' as const,
      batch: 'off' as const,
      antiFlake: false,
      optimizationMode: 'off' as const,
      adaptiveWindow: false,
    };
    const ample = await evaluate(scenario, arrivals, 1, { ...setup, concurrency: 8 });
    expect(ample.keepsUp).toBe(true);
    const busy = parseScenario({ ...input, hours: 2, arrivalsPerHour: 60, saturationDepth: 40 });
    const starved = await evaluate(busy, drawArrivals(busy, 1), 1, { ...setup, concurrency: 2 });
    expect(starved.keepsUp).toBe(false);
    expect(starved.oracleMergedPerHour).toBeGreaterThan(starved.mergedPerHour);
  });

  test('when nothing keeps up, the recommendation says so, with the best throughput against the oracle', () => {
    const best = evaluation({});
    const text = formatRecommendation({ best, runnersUp: [], overBudget: 0, evaluated: 10 }, undefined);
    expect(text).toContain(
      'no setup screened keeps up with this load: the best merges 40.00/h while PRs arrive against the oracle',
    );
    expect(text).toContain('"parallelBases":"direct"');
    const fine = formatRecommendation(
      { best: evaluation({ keepsUp: true }), runnersUp: [], overBudget: 0, evaluated: 10 },
      undefined,
    );
    expect(fine).not.toContain('keeps up');
  });
});
