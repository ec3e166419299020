/**
 * Fidelity: the simulator checked against the real service. Each scenario is played in real time on `greenline serve`
 * with the local git host (real git) and the built-in CI running the scripted command of sim/fidelityCommand.ts, and in
 * the simulator; the table compares the PRs merged, their order, the runs and the P50 time to merge (the ratio is real
 * over simulated: the simulation is the baseline, measured in the same run). Each real run takes a few minutes: the
 * scenarios are written in seconds (CI median 15 s). `npm run bench:fidelity` (it builds first: the service and the
 * command run from dist/); `-- --seed N` plays another seed, `-- --only batching` one scenario.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { checkFidelity, fidelityTable, type FidelityRow } from '../sim/fidelity.js';
import { parseScenario, type ScenarioInput } from '../sim/scenario.js';

/** About 15 PRs over 3 minutes, CI median 15 s and p90 24 s, 10 % broken, 5 % flaky runs. */
const WORKLOAD: Omit<ScenarioInput, 'name' | 'configs'> = {
  hours: 0.05,
  drainHours: 0.25,
  arrivalsPerHour: 300,
  ci: { medianMinutes: 0.25, p90Minutes: 0.4 },
  brokenRate: 0.1,
  flakeRate: 0.05,
};

export const FIDELITY_SCENARIOS = [
  parseScenario({ ...WORKLOAD, name: 'single-line', configs: [{ name: 'predictive4', concurrency: 4 }] }),
  parseScenario({
    ...WORKLOAD,
    name: 'batching',
    configs: [{ name: 'batch3', batch: true, batchingMinSize: 3, batchingMaxWaitTimeMinutes: 1, concurrency: 2 }],
  }),
];

async function main(): Promise<void> {
  const seedArg = process.argv.indexOf('--seed');
  const seed = seedArg >= 0 ? Number(process.argv[seedArg + 1]) : 1;
  const onlyArg = process.argv.indexOf('--only');
  const only = onlyArg >= 0 ? process.argv[onlyArg + 1] : undefined;
  const rows: FidelityRow[] = [];
  for (const scenario of FIDELITY_SCENARIOS.filter((candidate) => only === undefined || candidate.name === only)) {
    for (const config of scenario.configs) {
      const dir = await mkdtemp(join(tmpdir(), 'greenline-fidelity-'));
      try {
        const started = Date.now();
        const { row } = await checkFidelity(scenario, config, dir, { seed });
        process.stderr.write(`${row.name}: real run ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
        for (const difference of row.differences) process.stderr.write(`  ${difference}\n`);
        rows.push(row);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
  }
  console.log(
    `fidelity, seed ${seed}: the real service (local git, built-in CI) against the simulator on the same scenario`,
  );
  console.log(fidelityTable(rows));
}

// Run alone, not when another file imports the scenarios.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
