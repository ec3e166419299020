import { drawArrivals } from '../sim/arrivals.js';
import { runQueue } from '../sim/queueRun.js';
import { parseScenario } from '../sim/scenario.js';
import { figuresOf } from './failures.js';
const scenario = parseScenario({ name: 'f', hours: 8, arrivalsPerHour: 60, ci: { medianMinutes: 30, p90Minutes: 30 }, brokenRate: 0.05, flakeRate: 0.02, predictiveFeatures: {}, configs: [{ name: 'c', concurrency: 4 }] });
const arrivals = drawArrivals(scenario, 1);
for (const settings of [{ concurrency: 40 }, { concurrency: 40, optimizationMode: 'speculate_by_likelihood' as const, speculationRunsPercent: 30 }]) {
  const outcome = await runQueue({ scenario, seed: 1, settings, arrivals });
  const f = figuresOf(outcome);
  const lk = outcome.prs.filter((p) => p.likelihood !== undefined);
  const m = (xs: typeof lk) => (xs.reduce((s, p) => s + (p.likelihood ?? 0), 0) / Math.max(1, xs.length)).toFixed(3);
  console.log(JSON.stringify(settings), f.p50, f.mergedPerHour.toFixed(1), f.runsPerMerge.toFixed(2), 'spec', outcome.runs.filter((r) => r.speculative).length, 'meanp broken', m(lk.filter((p) => p.broken)), 'good', m(lk.filter((p) => !p.broken)), 'max', Math.max(...lk.map((p) => p.likelihood ?? 0)).toFixed(2));
}
