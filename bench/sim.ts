/**
 * The simulator's speed: engine events (inputs, each one store transaction with the machines and the planner) per
 * second of wall time in simulation, the wall time of one simulated week at 1,000 PRs a day, and the wall time of a
 * whole `simulate()` (a configuration and both baselines, the single queue saturating), each beside raw XState
 * transitions per second (`transition(pullRequestMachine, …)` in a loop) measured in the same run.
 * `npm run bench:sim` runs it alone; `npm run bench` runs it with the others.
 */
import { pathToFileURL } from 'node:url';
import { parseScenario } from '../sim/scenario.js';
import { drawArrivals } from '../sim/arrivals.js';
import { runQueue } from '../sim/queueRun.js';
import { summarise } from '../sim/report.js';
import { simulate } from '../sim/simulate.js';
import { rawXState, report, type Figure } from './measure.js';

const PRS_PER_DAY = 1_000;
/** A queue that keeps up with 1,000 PRs a day: predictive testing, 24 runs at once. */
const SETTINGS = { concurrency: 24 };

function scenario(hours: number) {
  return parseScenario({
    name: `${PRS_PER_DAY} PRs a day`,
    hours,
    drainHours: 6,
    arrivalsPerHour: PRS_PER_DAY / 24,
    ci: { medianMinutes: 15, p90Minutes: 30 },
    brokenRate: 0.02,
    flakeRate: 0.01,
    configs: [{ name: 'predictive24', ...SETTINGS }],
  });
}

async function simulated(hours: number): Promise<{ figure: Figure; prs: number; merged: number; maxDepth: number }> {
  const s = scenario(hours);
  const arrivals = drawArrivals(s, 1);
  const start = process.hrtime.bigint();
  const outcome = await runQueue({ scenario: s, seed: 1, settings: SETTINGS, arrivals });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const row = summarise('predictive24', outcome);
  const days = hours / 24;
  return {
    figure: {
      name: `engine events, ${days === 1 ? 'one simulated day' : days === 7 ? 'one simulated week' : `${days} simulated days`} at ${PRS_PER_DAY.toLocaleString('en')} PRs/day`,
      operations: outcome.events,
      seconds,
    },
    prs: arrivals.length,
    merged: row.merged,
    maxDepth: row.maxDepth,
  };
}

/** A whole simulate(): the configuration and both baselines on the same arrivals (the single queue saturates). */
async function wholeSimulation(hours: number): Promise<{ figure: Figure; prs: number; rows: string[] }> {
  const s = scenario(hours);
  const start = process.hrtime.bigint();
  const { report, arrivals, queues } = await simulate(s, { seed: 1 });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const events = queues.reduce((sum, queue) => sum + queue.outcome.events, 0);
  const rows = [...report.configs, report.singleQueue].map(
    (row) =>
      `${row.name}: ${row.merged.toLocaleString('en')} merged, ${row.events.toLocaleString('en')} events, ` +
      (row.saturated
        ? `saturated after ${row.simulatedHours.toFixed(1)} simulated hours (depth ${row.maxDepth})`
        : `at most ${row.maxDepth} queued`),
  );
  return {
    figure: {
      name: `engine events, simulate(): ${hours} h at ${PRS_PER_DAY.toLocaleString('en')} PRs/day, with baselines`,
      operations: events,
      seconds,
    },
    prs: arrivals.length,
    rows,
  };
}

export async function benchSim(): Promise<void> {
  const xstate = await rawXState();
  const day = await simulated(24);
  const week = await simulated(24 * 7);
  const whole = await wholeSimulation(48);
  report('simulation: engine events per second, beside raw XState transitions per second', xstate, [
    day.figure,
    week.figure,
    whole.figure,
  ]);
  const transitionsPerSecond = xstate.operations / xstate.seconds;
  const { seconds, operations } = week.figure;
  console.log(
    `\none simulated week at ${PRS_PER_DAY.toLocaleString('en')} PRs/day: ${seconds.toFixed(1)} s wall time ` +
      `(${week.prs.toLocaleString('en')} PRs, ${week.merged.toLocaleString('en')} merged, at most ${week.maxDepth} queued; ` +
      `${operations.toLocaleString('en')} engine events; ${Math.round((7 * 86_400) / seconds).toLocaleString('en')}× real time). ` +
      `Raw XState makes ${operations.toLocaleString('en')} transitions in ${(operations / transitionsPerSecond).toFixed(2)} s.`,
  );
  const wholeEvents = whole.figure.operations;
  console.log(
    `\nsimulate(), 48 simulated hours at ${PRS_PER_DAY.toLocaleString('en')} PRs/day (${whole.prs.toLocaleString('en')} PRs), predictive24 and both ` +
      `baselines: ${whole.figure.seconds.toFixed(1)} s wall time (${wholeEvents.toLocaleString('en')} engine events; ` +
      `raw XState makes as many transitions in ${(wholeEvents / transitionsPerSecond).toFixed(2)} s).\n  ${whole.rows.join('\n  ')}`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(`node ${process.version}, ${process.platform}/${process.arch}`);
  await benchSim();
}
