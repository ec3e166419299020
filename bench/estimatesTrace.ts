/**
 * Each merged PR's merge estimate beside what happened (a trace for bench/estimates.ts): when it became ready, its
 * place in the line-up, the estimate's median and P90, the actual time to merge, and every run that held it
 * (kind m/b, status s/f/c, size, start–end in minutes from its readiness).
 *
 * `npx tsx bench/estimatesTrace.ts [workload] [seed] [hours]` (default batch8 1 12)
 */
import { pathToFileURL } from 'node:url';
import { SIM_START } from '../sim/queueRun.js';
import { exampleQueue } from './estimates.js';

export async function trace(configName: string, seed: number, hours: number): Promise<void> {
  const { run } = exampleQueue(configName, seed, hours);
  const ready = new Map<number, { at: number; index: number; median: number; p90: number; lineup: number }>();
  const outcome = await run((engine, key) => {
    const { queue } = engine.getQueue(key);
    const lineup = queue.runtime.lineup;
    if (!lineup.some((number) => !ready.has(number))) return;
    const now = engine.scheduler.now();
    const estimates = engine.estimates(key);
    for (const [index, number] of lineup.entries()) {
      const estimate = estimates.get(number);
      if (estimate === undefined || ready.has(number)) continue;
      ready.set(number, { at: now, index, median: estimate.at, p90: estimate.p90, lineup: lineup.length });
    }
  });
  const min = (ms: number) => (ms / 60_000).toFixed(0);
  for (const pr of outcome.prs) {
    const r = ready.get(pr.number);
    if (r === undefined || pr.leftAt === null) continue;
    const actual = SIM_START + pr.leftAt - r.at;
    const runs = outcome.runs
      .filter((x) => x.prs.includes(pr.number))
      .map(
        (x) =>
          `${x.kind[0]}${x.status[0]}${x.prs.length}@${min(x.startedAt - (r.at - SIM_START))}-${min(x.endedAt - (r.at - SIM_START))}`,
      );
    console.log(
      `#${pr.number} ${pr.state} ${pr.broken ? 'B' : ' '} ready@${min(r.at - SIM_START)} idx ${r.index}/${r.lineup} est ${min(r.median - r.at)} p90 ${min(r.p90 - r.at)} actual ${min(actual)} err ${(((r.median - r.at - actual) / actual) * 100).toFixed(0)}% ${runs.join(' ')}`,
    );
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href)
  await trace(process.argv[2] ?? 'batch8', Number(process.argv[3] ?? 1), Number(process.argv[4] ?? 12));
