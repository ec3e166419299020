/** The event log of a scenario's first configuration, simulated: what a queue running it would have recorded. */
import type { EventLog } from '../engine/runtime/eventLog.js';
import { drawArrivals } from '../sim/arrivals.js';
import { runQueue } from '../sim/queueRun.js';
import { type Scenario, settingsOf } from '../sim/scenario.js';

export async function queueRunOf(scenario: Scenario, seed: number): Promise<EventLog> {
  const config = scenario.configs[0];
  if (config === undefined) throw new Error(`the scenario ${scenario.name} has no configuration`);
  const outcome = await runQueue({
    scenario,
    seed,
    settings: settingsOf(config),
    arrivals: drawArrivals(scenario, seed),
    record: true,
    label: `calibration: ${scenario.name}`,
  });
  if (outcome.log === undefined) throw new Error('the simulation kept no event log');
  return outcome.log;
}
