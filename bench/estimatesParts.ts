/**
 * Which part of the merge forecast costs its error (issue 32): the same forecast (engine/estimate) measured in one run
 * with one input replaced by what the simulator knows, at readiness, for PRs that merge. `likelihood`: as the service
 * runs it; `truth`: each PR's chance to fail is 1 when it is broken and the flake rate when not (the queue's
 * mechanics then cost what is left); `flat`: every PR the scenario's rate (broken + flake).
 *
 * `npx tsx bench/estimatesParts.ts [workload] [seeds] [--hours H]` (default batch8 1,2,3, 12 h)
 */
import { pathToFileURL } from 'node:url';
import type { Engine, QueueKey } from '../engine/engine.js';
import { estimateQueue, type MergeEstimate } from '../engine/estimate/index.js';
import type { PullRequestRecord } from '../engine/model/pullRequests.js';
import type { Store } from '../engine/store/store.js';
import { SIM_START } from '../sim/queueRun.js';
import { exampleQueue } from './estimates.js';

type Variant = (pr: PullRequestRecord) => number | undefined;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

function estimate(engine: Engine, key: QueueKey, failureOf: Variant | undefined): Map<number, MergeEstimate> {
  const { queue, enqueued } = engine.getQueue(key);
  // The engine's reads go through its store, which it keeps to itself: a benchmark reaches in.
  const store = (engine as unknown as { store: Store }).store;
  const now = engine.scheduler.now();
  return store.read((tx) =>
    estimateQueue(tx, queue, enqueued, (runId) => engine.testRun(queue.id, runId), now, failureOf),
  );
}

export async function parts(configName: string, seed: number, hours: number): Promise<string> {
  const { source, run } = exampleQueue(configName, seed, hours);
  const broken = new Set(source.arrivals.filter((arrival) => arrival.broken).map((arrival) => arrival.number));
  const { flakeRate, brokenRate } = source.scenario;
  const variants: [string, Variant | undefined][] = [
    ['likelihood', undefined],
    ['truth', (pr) => (broken.has(pr.number) ? 1 : flakeRate)],
    ['flat', () => brokenRate + flakeRate],
  ];
  const ready = new Map<number, { at: number; estimates: number[] }>();
  const outcome = await run((engine, key) => {
    const lineup = engine.getQueue(key).queue.runtime.lineup;
    if (lineup.every((number) => ready.has(number))) return;
    const all = variants.map(([, variant]) => estimate(engine, key, variant));
    for (const number of lineup) {
      if (ready.has(number) || all[0]!.get(number) === undefined) continue;
      ready.set(number, {
        at: engine.scheduler.now(),
        estimates: all.map((estimates) => estimates.get(number)?.at ?? Number.NaN),
      });
    }
  });
  const rows = outcome.prs.flatMap((pr) => {
    const sample = ready.get(pr.number);
    if (pr.state !== 'MERGED' || sample === undefined) return [];
    const actual = SIM_START + pr.leftAt! - sample.at;
    return actual > 0 ? [{ sample, actual }] : [];
  });
  const cells = variants.map(([name], index) => {
    const errors = rows.map(({ sample, actual }) => (sample.estimates[index]! - sample.at - actual) / actual);
    return `${name} ${(median(errors.map(Math.abs)) * 100).toFixed(1)} % (signed ${(median(errors) * 100).toFixed(1)} %)`;
  });
  return `${configName} seed ${seed}, ${rows.length} merged PRs, median error at readiness: ${cells.join('; ')}`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--hours');
  const hours = at === -1 ? 12 : Number(args[at + 1]);
  const rest = at === -1 ? args : args.filter((_, index) => index !== at && index !== at + 1);
  for (const seed of (rest[1] ?? '1,2,3').split(',').map(Number))
    console.log(await parts(rest[0] ?? 'batch8', seed, hours));
}
