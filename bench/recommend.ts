/**
 * `--recommend` against an exhaustive search over the same grid (issue 22), on the bundled example
 * (sim/examples/monorepo.json): the recommendation's wall time and pick, then every setup of the grid on the whole
 * scenario, and the pick's P50 as a ratio of the best P50 found within the same budget. `npm run bench:recommend
 * [-- --budget N]`. The exhaustive search takes minutes.
 */
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { drawArrivals } from '../sim/arrivals.js';
import { better, describeSetup, evaluate, gridFor, recommend, type Evaluation, type Setup } from '../sim/recommend.js';
import { parseScenarioText } from '../sim/scenario.js';

function everySetup(grid: ReturnType<typeof gridFor>): Setup[] {
  let setups: Partial<Setup>[] = [{}];
  for (const name of Object.keys(grid) as (keyof Setup)[]) {
    setups = setups.flatMap((partial) =>
      (grid[name] as readonly unknown[]).map((value) => ({ ...partial, [name]: value })),
    );
  }
  return setups as Setup[];
}

export async function benchRecommend(budget = 1.5): Promise<void> {
  const path = new URL('../sim/examples/monorepo.json', import.meta.url);
  const scenario = parseScenarioText(await readFile(path, 'utf8'), 'monorepo.json');
  const seed = scenario.seed;
  const arrivals = drawArrivals(scenario, seed);
  const started = performance.now();
  const rec = await recommend(scenario, arrivals, seed, budget);
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `\n--recommend on monorepo.json (budget ${budget} runs/merge): ${seconds.toFixed(1)} s, ${rec.evaluated} simulations`,
  );
  console.log(
    `  pick: ${describeSetup(rec.best.setup)}: P50 ${rec.best.p50.toFixed(1)} min, ${rec.best.runsPerMerge.toFixed(2)} runs/merge`,
  );
  const setups = everySetup(gridFor(scenario));
  const exhaustiveStart = performance.now();
  const all: Evaluation[] = [];
  for (const setup of setups) all.push(await evaluate(scenario, arrivals, seed, setup));
  const exhaustiveSeconds = (performance.now() - exhaustiveStart) / 1000;
  all.sort(better(budget));
  const best = all[0] as Evaluation;
  console.log(
    `exhaustive: ${setups.length} setups in ${exhaustiveSeconds.toFixed(0)} s (${(exhaustiveSeconds / seconds).toFixed(1)}× the recommendation's time)`,
  );
  for (const e of all.slice(0, 5))
    console.log(`  ${describeSetup(e.setup)}: P50 ${e.p50.toFixed(1)} min, ${e.runsPerMerge.toFixed(2)} runs/merge`);
  const ratio = rec.best.p50 / best.p50;
  const rank = all.findIndex((e) => JSON.stringify(e.setup) === JSON.stringify(rec.best.setup)) + 1;
  console.log(
    `  pick's P50 = ${ratio.toFixed(3)}× the exhaustive best (rank ${rank} of ${all.length}) — ${ratio <= 1.1 ? 'within 10%' : 'NOT within 10%'}; under a minute: ${seconds < 60 ? 'yes' : 'no'}`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const at = process.argv.indexOf('--budget');
  await benchRecommend(at === -1 ? 1.5 : Number(process.argv[at + 1]));
}
