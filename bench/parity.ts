/**
 * Bench parity (issue 31: the engine and simulator benches no slower than 5 %): the CPU time of `atDepth(100)` and of a
 * 12-hour simulation in this tree against a baseline checkout, measured in the same run, each case in a fresh process
 * (bench/parityChild.ts), the two trees alternating so that the machine's load falls on both alike; best of N.
 * `tsx bench/parity.ts BASELINE_ROOT [N]`, e.g. a worktree of the commit before a regroup:
 *   git worktree add --detach ../base COMMIT && cp -al node_modules ../base/ && tsx bench/parity.ts ../base 7
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const [baseArgument, roundsArgument] = process.argv.slice(2);
if (baseArgument === undefined) throw new Error('usage: parity.ts BASELINE_ROOT [ROUNDS]');
const rounds = Number(roundsArgument ?? 5);
const here = resolve(fileURLToPath(new URL('..', import.meta.url)));
const trees = { baseline: resolve(baseArgument), now: here };
const child = fileURLToPath(new URL('./parityChild.ts', import.meta.url));

function measure(root: string, which: string): { cpu: number; events: number } {
  const out = execFileSync(process.execPath, ['--import', 'tsx', child, root, which], { cwd: here, encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').at(-1) as string);
}

const spread = (values: number[]) => (Math.max(...values) - Math.min(...values)) / Math.min(...values);
console.log(
  `baseline ${trees.baseline}\nnow      ${trees.now}\n${rounds} rounds, CPU seconds (user + system) per case`,
);
console.log(
  `${'case'.padEnd(22)} ${'base best'.padStart(10)} ${'now best'.padStart(10)} ${'ratio'.padStart(7)} ${'base spread'.padStart(12)} ${'now spread'.padStart(11)} ${'events b/n'.padStart(14)}`,
);
for (const which of ['depth', 'sim']) {
  const figures: Record<'baseline' | 'now', number[]> = { baseline: [], now: [] };
  let events = '';
  for (let round = 0; round < rounds; round++) {
    const order: Array<'baseline' | 'now'> = round % 2 === 0 ? ['baseline', 'now'] : ['now', 'baseline'];
    const seen: Record<string, number> = {};
    for (const tree of order) {
      const { cpu, events: count } = measure(trees[tree], which);
      figures[tree].push(cpu);
      seen[tree] = count;
    }
    events = `${seen.baseline}/${seen.now}`;
  }
  const base = Math.min(...figures.baseline);
  const now = Math.min(...figures.now);
  const name = which === 'depth' ? 'atDepth(100), single' : '12 h simulation';
  console.log(
    `${name.padEnd(22)} ${base.toFixed(3).padStart(10)} ${now.toFixed(3).padStart(10)} ${(now / base).toFixed(3).padStart(7)} ${`${(100 * spread(figures.baseline)).toFixed(1)} %`.padStart(12)} ${`${(100 * spread(figures.now)).toFixed(1)} %`.padStart(11)} ${events.padStart(14)}`,
  );
  console.log(
    `  all: baseline ${figures.baseline.map((v) => v.toFixed(3)).join(' ')} | now ${figures.now.map((v) => v.toFixed(3)).join(' ')}`,
  );
}
