/**
 * How good the merge estimates are (engine/estimate), judged by the simulator: for each PR, the estimate when it
 * becomes ready and when it reaches the head of the queue, against when it actually merged. Over the bundled example
 * (sim/examples/monorepo.json, predictive4) and two other workloads on it (batch8: batching; lanes4: parallel mode),
 * seeds 1–3: for PRs that merge, the median of |estimate − actual| / actual (durations from the moment of the
 * estimate) at readiness and at the head, and the share of actual times under the P90 estimate. Beside each, the same
 * figures of a baseline measured in the same run: (position ÷ concurrency + 1) × the median CI duration seen, with
 * the ratio of errors. Goals: median error ≤ 25 % at readiness, ≤ 10 % at the head; 85–95 % under the P90.
 *
 * `npx tsx bench/estimates.ts [--hours H]` (default 12 hours of arrivals per run; the example has 72).
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { drawArrivals } from '../sim/arrivals.js';
import { runQueue, SIM_START } from '../sim/queueRun.js';
import { parseScenarioText, settingsOf } from '../sim/scenario.js';

interface Sample {
  /** When the estimate was made, the median and P90 it gave, and the baseline's. */
  at: number;
  median: number;
  p90: number;
  baseline: number;
}

interface Figures {
  prs: number;
  readyError: number;
  headError: number;
  readyUnderP90: number;
  headUnderP90: number;
  baselineReadyError: number;
  baselineHeadError: number;
}

const median = (values: number[]) => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

export async function measureEstimates(configName: string, seed: number, hours: number): Promise<Figures> {
  const scenario = parseScenarioText(readFileSync(new URL('../sim/examples/monorepo.json', import.meta.url), 'utf8'), 'monorepo.json');
  const config = scenario.configs.find((candidate) => candidate.name === configName);
  if (config === undefined) throw new Error(`no configuration ${configName} in the example`);
  const shortened = { ...scenario, hours };
  const settings = settingsOf(config);
  const ready = new Map<number, Sample>();
  const head = new Map<number, Sample>();
  const outcome = await runQueue({
    scenario: shortened,
    seed,
    settings,
    arrivals: drawArrivals(shortened, seed),
    onStep: (engine, key) => {
      const { queue } = engine.getQueue(key);
      const lineup = queue.runtime.lineup;
      const fresh = lineup.filter((number, index) => !ready.has(number) || (index === 0 && !head.has(number)));
      if (fresh.length === 0) return;
      const now = engine.scheduler.now();
      const estimates = engine.estimates(key);
      const concurrency = Math.max(1, settings.concurrency ?? 1);
      const ciMedian = (scenario.ci.medianMinutes ?? 30) * 60_000;
      for (const [index, number] of lineup.entries()) {
        const estimate = estimates.get(number);
        if (estimate === undefined) continue;
        const sample = { at: now, median: estimate.at, p90: estimate.p90, baseline: now + (Math.floor(index / concurrency) + 1) * ciMedian };
        if (!ready.has(number)) ready.set(number, sample);
        if (index === 0 && !head.has(number)) head.set(number, sample);
      }
    },
  });
  const merged = outcome.prs.filter((pr) => pr.state === 'MERGED' && pr.leftAt !== null);
  const error = (samples: Map<number, Sample>, of: (sample: Sample) => number) =>
    merged.flatMap((pr) => {
      const sample = samples.get(pr.number);
      if (sample === undefined) return [];
      const actual = SIM_START + pr.leftAt! - sample.at;
      if (actual <= 0) return [];
      return [Math.abs(of(sample) - sample.at - actual) / actual];
    });
  const under = (samples: Map<number, Sample>) => {
    const judged = merged.filter((pr) => samples.has(pr.number));
    return judged.filter((pr) => SIM_START + pr.leftAt! <= samples.get(pr.number)!.p90).length / Math.max(1, judged.length);
  };
  return {
    prs: merged.length,
    readyError: median(error(ready, (sample) => sample.median)),
    headError: median(error(head, (sample) => sample.median)),
    readyUnderP90: under(ready),
    headUnderP90: under(head),
    baselineReadyError: median(error(ready, (sample) => sample.baseline)),
    baselineHeadError: median(error(head, (sample) => sample.baseline)),
  };
}

const percent = (value: number) => `${(value * 100).toFixed(1)} %`;
const ratio = (value: number, baseline: number) => (baseline > 0 ? `${(value / baseline).toFixed(2)}×` : 'n/a');

async function main(): Promise<void> {
  const at = process.argv.indexOf('--hours');
  const hours = at === -1 ? 12 : Number(process.argv[at + 1]);
  console.log(`Merge estimates against the simulator (sim/examples/monorepo.json, ${hours} h of arrivals, seeds 1-3)`);
  console.log('workload       seed  merged  err@ready (baseline, ratio)        err@head (baseline, ratio)         <=P90 ready  <=P90 head');
  for (const workload of ['predictive4', 'batch8', 'lanes4']) {
    for (const seed of [1, 2, 3]) {
      const f = await measureEstimates(workload, seed, hours);
      console.log(
        `${workload.padEnd(14)} ${String(seed).padEnd(5)} ${String(f.prs).padEnd(7)} ` +
          `${percent(f.readyError).padEnd(8)} (${percent(f.baselineReadyError)}, ${ratio(f.readyError, f.baselineReadyError)})`.padEnd(36) +
          `${percent(f.headError).padEnd(8)} (${percent(f.baselineHeadError)}, ${ratio(f.headError, f.baselineHeadError)})`.padEnd(35) +
          `${percent(f.readyUnderP90).padEnd(12)} ${percent(f.headUnderP90)}`,
      );
    }
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
