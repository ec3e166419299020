/**
 * bench:window's adaptive figures on one workload, with the scenario CI's draws before issue 35 (bench/setAttemptCi.ts)
 * and today's, in the same run: every fixed window of the grid and the adaptive window, P50 and runs per change, and
 * the adaptive row against the best fixed window by P50 (the figure bench:window judges).
 * `npx tsx bench/windowDraws.ts [--workload deep] [--seed N]`.
 */
import { drawArrivals } from '../sim/arrivals.js';
import { ScenarioCi } from '../sim/ci.js';
import { runQueue } from '../sim/queueRun.js';
import { parseScenario } from '../sim/scenario.js';
import { figuresOf, type Figures, WORKLOADS } from './failures.js';
import { SetAttemptCi } from './setAttemptCi.js';
import { INVENTED } from './window.js';

const option = (name: string) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
};
const wanted = option('--workload') ?? 'deep';
const seed = Number(option('--seed') ?? '1');
const workload = [...WORKLOADS, ...INVENTED].find((candidate) => candidate.scenario.name === wanted);
if (workload === undefined) throw new Error(`no workload ${wanted}`);
const config = workload.configs[0] as (typeof workload.configs)[number];
const limit = config.settings.concurrency ?? 1;
const windows: number[] = [];
for (let w = 1; w < limit; w *= 2) windows.push(w);
windows.push(limit);
const scenario = parseScenario({ ...workload.scenario, seed, configs: [{ name: config.name, ...config.settings }] });
const arrivals = drawArrivals(scenario, seed);
console.log(`${workload.name} — ${config.name}, seed ${seed} (${arrivals.length} PRs)`);
for (const [draws, ci] of [
  ['before', (scheduler, options) => new SetAttemptCi(scheduler, options)],
  ['after', (scheduler, options) => new ScenarioCi(scheduler, options)],
] as const satisfies readonly (readonly [string, NonNullable<Parameters<typeof runQueue>[0]['ci']>])[]) {
  const rows: { label: string; figures: Figures }[] = [];
  for (const window of windows)
    rows.push({
      label: `fixed ${window}`,
      figures: figuresOf(
        await runQueue({ scenario, seed, settings: { ...config.settings, concurrency: window }, arrivals, ci }),
      ),
    });
  const adaptive = figuresOf(
    await runQueue({
      scenario,
      seed,
      settings: { ...config.settings, adaptiveWindow: true, adaptiveWindowFloor: 1 },
      arrivals,
      ci,
    }),
  );
  console.log(`\ndraws ${draws}`);
  for (const { label, figures } of [...rows, { label: `adaptive 1..${limit}`, figures: adaptive }]) {
    console.log(
      `${label.padEnd(14)} p50 ${figures.p50.padStart(6)}  merged/h ${figures.mergedPerHour.toFixed(2).padStart(6)}  runs/change ${figures.runsPerChange.toFixed(3)}${figures.saturated ? '  (saturated)' : ''}`,
    );
  }
  const kept = rows.filter(({ figures }) => !figures.saturated);
  const best = (kept.length > 0 ? kept : rows).reduce((a, b) => (b.figures.p50Minutes < a.figures.p50Minutes ? b : a));
  console.log(
    `adaptive vs best fixed by P50 (${best.label}): P50 ${(adaptive.p50Minutes / best.figures.p50Minutes).toFixed(2)}×, merged/h ${(adaptive.mergedPerHour / best.figures.mergedPerHour).toFixed(2)}×, runs/change ${(adaptive.runsPerChange / best.figures.runsPerChange).toFixed(2)}×`,
  );
}
