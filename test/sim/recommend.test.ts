/** `greenline sim --recommend`: the search, its budget, and what it prints. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { main } from '../../cli/main.js';
import { drawArrivals } from '../../sim/arrivals.js';
import { better, evaluate, recommend, settingsOfSetup } from '../../sim/recommend.js';
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
    const start = await evaluate(scenario, arrivals, 1, { mode: 'single', concurrency: 4, batch: 'off', antiFlake: false, optimizationMode: 'off', adaptiveWindow: false });
    if (start.runsPerMerge <= 1.3) expect(rec.best.p50).toBeLessThanOrEqual(start.p50);
    expect(settingsOfSetup({ ...rec.best.setup, batch: '8/30min' })).toMatchObject({ batch: true, batchingMinSize: 8, batchingMaxWaitTimeMinutes: 30 });
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
