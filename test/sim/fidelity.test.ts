/**
 * The simulator checked against the real service: a small scenario played in real time on `greenline serve` (from
 * source) with the local git host and the built-in CI running the scripted command, and in the simulator. They must
 * merge the same PRs, in the same order, with the same runs. The real run waits on progress (the queue emptying),
 * not on a deadline; its timings are not asserted (bench/fidelity.ts prints them).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { checkFidelity } from '../../sim/fidelity.js';
import { parseScenario } from '../../sim/scenario.js';

/** 6 PRs in a minute, CI median 12 s (well above the seconds a command takes to start from source on a busy machine), a broken PR and a flake. */
const SCENARIO = parseScenario({
  name: 'fidelity-small',
  hours: 1 / 60,
  drainHours: 0.2,
  arrivalsPerHour: 480,
  ci: { medianMinutes: 0.2, p90Minutes: 0.3 },
  brokenRate: 0.15,
  flakeRate: 0.1,
  configs: [{ name: 'predictive3', concurrency: 3 }],
});

test('a small scenario merges the same PRs in the same order, with the same runs, on the real service as in the simulator', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'greenline-fidelity-test-'));
  try {
    const { row, real, sim } = await checkFidelity(SCENARIO, SCENARIO.configs[0]!, dir, { from: 'source' });
    // The scenario exercises a merge and a kick at least (else it would check little).
    expect(sim.prs.some((pr) => pr.state === 'MERGED')).toBe(true);
    expect(sim.prs.some((pr) => pr.state === 'FAILED')).toBe(true);
    expect(row.differences).toEqual([]);
    expect(real.mergeOrder).toEqual(sim.mergeOrder);
    expect(real.prs.map((pr) => [pr.number, pr.state])).toEqual(sim.prs.map((pr) => [pr.number, pr.state]));
    expect(real.runs.length).toBe(sim.runs.length);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
