/**
 * Start-up of the `greenline` command (issue 34), hyperfine-like: each command run N times as a fresh process,
 * median and spread of wall time, beside a bare `node -e 0` (the baseline, measured in the same run).
 *
 * - `--version` and `--help` as the command runs them now (commands.ts loads a command's module only when it runs),
 *   beside the same process importing every command module first, as the command did before (`eager`).
 * - `npm start` to the first answer of /healthz after `npm ci` built the project: the build step of `npm start`
 *   now (`tsc -b`, which finds the build up to date) beside a full `tsc -p` (what it ran before), each followed by
 *   `greenline serve` on a free port until /healthz answers.
 *
 * Needs the build (npm run build). `npm run bench:startup [-- RUNS [START_RUNS]]` (defaults 10 and 2).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = new URL('..', import.meta.url).pathname;
const NODE = process.execPath;
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const BIN = join(ROOT, 'bin/greenline.js');
/** The modules the command imported before it loaded them lazily: every command's. */
const EAGER_MODULES = ['serve', 'sim', 'upload', 'backup', 'replay', 'token', 'charts', 'session'].map(
  (name) => `./dist/cli/${name}.js`,
);

interface Figures {
  median: number;
  min: number;
  max: number;
}

function figures(samples: number[]): Figures {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  const median =
    sorted.length % 2 === 1
      ? (sorted[middle] as number)
      : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
  return { median, min: sorted[0] as number, max: sorted.at(-1) as number };
}

function timeProcess(args: string[], runs: number): Figures {
  const samples: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = process.hrtime.bigint();
    const result = spawnSync(NODE, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
    if (result.status !== 0) throw new Error(`${args.join(' ')} failed: ${result.stderr.toString()}`);
  }
  return figures(samples);
}

async function repeat(times: number, measure: () => Promise<number>): Promise<number[]> {
  const samples: number[] = [];
  for (let run = 0; run < times; run++) samples.push(await measure());
  return samples;
}

/** `build`, then `greenline serve` on a free port until /healthz answers 200: ms. */
async function startToHealthz(build: string[], fromScratch = false): Promise<number> {
  const dataDir = await mkdtemp(join(tmpdir(), 'greenline-bench-startup-'));
  if (fromScratch) await rm(join(ROOT, 'dist/.tsbuildinfo'), { force: true });
  const started = process.hrtime.bigint();
  const built = spawnSync(NODE, [TSC, ...build], { cwd: ROOT, stdio: 'inherit' });
  if (built.status !== 0) throw new Error(`tsc ${build.join(' ')} failed`);
  const server = spawn(NODE, [BIN, 'serve'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      HOST: '127.0.0.1',
      PORT: '0',
      GREENLINE_DATA: dataDir,
      GREENLINE_PROVIDER: 'sim',
      GREENLINE_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      server.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (match) resolve(match[1] as string);
      });
      server.on('exit', (code) => reject(new Error(`serve exited (${code}): ${out}`)));
    });
    for (;;) {
      const answer = await fetch(`${url}/healthz`).catch(() => undefined);
      if (answer?.status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return Number(process.hrtime.bigint() - started) / 1e6;
  } finally {
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
    await rm(dataDir, { recursive: true, force: true });
  }
}

const ms = (value: number) => `${value.toFixed(0).padStart(6)} ms`;
const row = (name: string, value: Figures, baseline: number) =>
  `${name.padEnd(52)} ${ms(value.median)}  (${ms(value.min).trim()} – ${ms(value.max).trim()})  ${(value.median / baseline).toFixed(2).padStart(6)}× node`;

async function main(): Promise<void> {
  const runs = Number(process.argv[2] ?? 10);
  const startRuns = Number(process.argv[3] ?? 2);
  console.log(
    `greenline start-up: ${runs} runs each (median, min – max), ratio to a bare node; load average ${(
      await import('node:os')
    )
      .loadavg()
      .map((load) => load.toFixed(1))
      .join(' ')}`,
  );
  const node = timeProcess(['-e', '0'], runs);
  console.log(row('node -e 0 (baseline)', node, node.median));
  // node -e puts its arguments at argv[1]; the command reads from argv[2].
  const eager = `process.argv.splice(1, 0, 'greenline'); await Promise.all(${JSON.stringify(EAGER_MODULES)}.map((module) => import(module))); await import('./dist/cli/greenline.js');`;
  const lines: [string, string[]][] = [
    ['greenline --version', [BIN, '--version']],
    ['greenline --version, every command loaded (before)', ['--input-type=module', '-e', eager, '--', '--version']],
    ['greenline --help', [BIN, '--help']],
    ['greenline --help, every command loaded (before)', ['--input-type=module', '-e', eager, '--', '--help']],
  ];
  const measured = new Map<string, Figures>();
  for (const [name, args] of lines) {
    const value = timeProcess(args, runs);
    measured.set(name, value);
    console.log(row(name, value, node.median));
  }
  for (const command of ['--version', '--help']) {
    const now = measured.get(`greenline ${command}`) as Figures;
    const before = measured.get(`greenline ${command}, every command loaded (before)`) as Figures;
    console.log(`  ${command}: ${(before.median / now.median).toFixed(1)}× faster than loading every command`);
  }
  if (startRuns > 0) {
    console.log(`\nnpm start to /healthz after npm ci built the project (${startRuns} runs each):`);
    const now = figures(await repeat(startRuns, () => startToHealthz(['-b', 'tsconfig.build.json'])));
    // Before: no build information, so tsc builds everything, as `tsc -p` did on every npm start.
    const before = figures(await repeat(startRuns, () => startToHealthz(['-p', 'tsconfig.build.json'], true)));
    console.log(row('tsc -b (up to date) + serve → /healthz (now)', now, node.median));
    console.log(row('tsc -p (a full build) + serve → /healthz (before)', before, node.median));
    console.log(`  npm start: ${(before.median / now.median).toFixed(1)}× faster to /healthz`);
  }
}

await main();
