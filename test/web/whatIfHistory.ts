/**
 * A queue with a history, for the what-if tests: six hours of a small simulated workload run into an LMDB data
 * folder, which `greenline sim --from-queue` then fits (its queue is the simulator's SIM_KEY).
 */
import { openLmdbStore } from '../../engine/store/index.js';
import { drawArrivals } from '../../sim/arrivals.js';
import { runQueue } from '../../sim/queueRun.js';
import { parseScenario } from '../../sim/scenario.js';

export async function simulatedHistory(dir: string, seed: number): Promise<void> {
  const scenario = parseScenario({
    name: 'small',
    hours: 6,
    arrivalsPerHour: 6,
    ci: { medianMinutes: 15, p90Minutes: 30 },
    brokenRate: 0.08,
    flakeRate: 0.03,
    configs: [{ name: 'current', concurrency: 2 }],
  });
  const store = openLmdbStore({ dir });
  try {
    await runQueue({ scenario, seed, settings: { concurrency: 2 }, arrivals: drawArrivals(scenario, seed), store });
  } finally {
    await store.close();
  }
}
