/**
 * One measurement for bench/parity.ts, in a process of its own: `tsx bench/parityChild.ts ROOT CASE` loads the engine
 * or the simulator from the checkout at ROOT (this tree or an older commit's worktree) and prints, as JSON, the CPU
 * time (process.cpuUsage, user + system) of one run of CASE: `depth` is `atDepth(100)` in single mode over 150
 * arrivals after a warm-up at depth 20; `sim` is a 12-hour simulation of 1,000 PRs a day (bench/sim.ts's scenario).
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [rootArgument, which] = process.argv.slice(2);
if (rootArgument === undefined || (which !== 'depth' && which !== 'sim'))
  throw new Error('usage: parityChild.ts ROOT depth|sim');
const root = resolve(rootArgument);
const load = (path: string) => import(pathToFileURL(resolve(root, path)).href);

const cpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

if (which === 'depth') {
  const { atDepth } = await load('bench/engine.ts');
  await atDepth(20, false, 50); // warm-up: compiling the engine is not what is compared
  const before = cpu();
  const figure = await atDepth(100, false, 150);
  console.log(JSON.stringify({ cpu: cpu() - before, events: figure.operations }));
} else {
  const { parseScenario } = await load('sim/scenario.ts');
  const { drawArrivals } = await load('sim/arrivals.ts');
  const { runQueue } = await load('sim/queueRun.ts');
  const settings = { concurrency: 24 };
  const scenario = parseScenario({
    name: '1,000 PRs a day',
    hours: 12,
    drainHours: 6,
    arrivalsPerHour: 1_000 / 24,
    ci: { medianMinutes: 15, p90Minutes: 30 },
    brokenRate: 0.02,
    flakeRate: 0.01,
    configs: [{ name: 'predictive24', ...settings }],
  });
  const arrivals = drawArrivals(scenario, 1);
  const before = cpu();
  const outcome = await runQueue({ scenario, seed: 1, settings, arrivals });
  console.log(JSON.stringify({ cpu: cpu() - before, events: outcome.events }));
}
