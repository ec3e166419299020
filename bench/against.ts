/**
 * This tree's engine and simulator beside an older commit's, in one process (issue 31's "no slowdown over 5 %"):
 * the older tree is extracted with `git archive` into a scratch folder (this tree's node_modules linked in) and both
 * are loaded through tsx, then measured in turns (which goes first alternates), so that both meet the same load. The
 * figure is engine events per CPU second of this process (`process.cpuUsage`), which other processes on a shared
 * machine move far less than wall time; each case prints the median of its rounds and the ratio now/before, and the
 * geometric mean of the ratios. Cases: bench/engine.ts's `atDepth` (single and parallel mode, 20, 100 and 300 PRs
 * queued) and a simulated day of bench/sim.ts's scenario (`runQueue`, 1,000 PRs a day, predictive24).
 * `npx tsx bench/against.ts [--before <commit>] [--rounds <n>] [--only <text of a case's name>]` (default: the main
 * branch's head, 6 rounds, every case)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = resolve(import.meta.dirname, '..');
const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const BEFORE = arg('--before') ?? 'main';
const ROUNDS = Number(arg('--rounds') ?? 6);
/** Only the cases whose name holds this text. */
const ONLY = arg('--only') ?? '';

interface Tree {
  atDepth: (depth: number, parallel: boolean, steps: number) => Promise<{ operations: number }>;
  day: () => Promise<number>;
}

async function load(root: string): Promise<Tree> {
  const at = (file: string) => pathToFileURL(join(root, file)).href;
  const engine = await import(at('bench/engine.ts'));
  const { parseScenario } = await import(at('sim/scenario.ts'));
  const { drawArrivals } = await import(at('sim/arrivals.ts'));
  const { runQueue } = await import(at('sim/queueRun.ts'));
  const settings = { concurrency: 24 };
  const scenario = parseScenario({
    name: '1000 PRs a day',
    hours: 24,
    drainHours: 6,
    arrivalsPerHour: 1000 / 24,
    ci: { medianMinutes: 15, p90Minutes: 30 },
    brokenRate: 0.02,
    flakeRate: 0.01,
    configs: [{ name: 'predictive24', ...settings }],
  });
  const arrivals = drawArrivals(scenario, 1);
  return {
    atDepth: engine.atDepth,
    day: async () => (await runQueue({ scenario, seed: 1, settings, arrivals })).events,
  };
}

/** Engine events per CPU second of this process while `run` runs. */
async function perCpuSecond(run: () => Promise<number>): Promise<number> {
  const before = process.cpuUsage();
  const events = await run();
  const used = process.cpuUsage(before);
  return events / ((used.user + used.system) / 1e6);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'greenline-against-'));
  try {
    execFileSync('sh', ['-c', `git archive ${BEFORE} | tar -x -C ${dir}`], { cwd: ROOT });
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    const now = await load(ROOT);
    const then = await load(dir);
    const cases: [string, (tree: Tree) => Promise<number>][] = [];
    for (const parallel of [false, true])
      for (const depth of [20, 100, 300])
        cases.push([
          `engine events, ${parallel ? 'parallel' : 'single'} mode, ${depth} queued`,
          async (tree) => (await tree.atDepth(depth, parallel, depth >= 300 ? 40 : 100)).operations,
        ]);
    cases.push(['simulated day, 1,000 PRs/day, predictive24', (tree) => tree.day()]);
    for (const tree of [now, then]) await tree.atDepth(20, false, 60); // warm-up: compiling each tree
    console.log(`this tree beside ${BEFORE}: engine events per CPU second, median of ${ROUNDS} rounds in turns\n`);
    console.log(`${'case'.padEnd(48)} ${'now'.padStart(8)} ${'before'.padStart(8)} ${'ratio'.padStart(7)}`);
    const ratios: number[] = [];
    for (const [name, run] of cases.filter(([name]) => name.includes(ONLY))) {
      const figures = { now: [] as number[], before: [] as number[] };
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 === 0 ? (['now', 'before'] as const) : (['before', 'now'] as const);
        for (const which of order) figures[which].push(await perCpuSecond(() => run(which === 'now' ? now : then)));
      }
      const ratio = median(figures.now) / median(figures.before);
      ratios.push(ratio);
      const cell = (value: number) => value.toFixed(0).padStart(8);
      console.log(
        `${name.padEnd(48)} ${cell(median(figures.now))} ${cell(median(figures.before))} ${ratio.toFixed(3).padStart(7)}`,
      );
    }
    const mean = Math.exp(ratios.reduce((sum, ratio) => sum + Math.log(ratio), 0) / ratios.length);
    console.log(`\ngeometric mean of the ratios: ${mean.toFixed(3)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
