/**
 * The mutation table of the conformance suite (issue 29): each planted bug is applied to a scratch copy of the
 * sources, a `greenline serve` of that copy (simulated git host, CI steered through setCommitStatus) is started,
 * and the generated suite runs against it with seed 1 (interleavings stop at their first failure, unshrunk). A row
 * is caught when the suite reports any failure; on the unmutated copy it must report none.
 *
 *   npx tsx test/conformance/mutations.ts [ids...]     (default: every row; `none` is the unmutated copy)
 */
import { spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runConformance } from '../../conformance/run.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TOKEN = 'mutation-token-0123456789abcdef';

interface Mutant {
  id: string;
  bug: string;
  file: string;
  from: string;
  to: string;
}

const MUTANTS: Mutant[] = [
  { id: 'none', bug: 'no bug (the suite must pass)', file: 'engine/engine.ts', from: '', to: '' },
  {
    id: '2',
    bug: 'draining settles to running',
    file: 'machines/queue.ts',
    from: "SETTLED: 'paused',",
    to: "SETTLED: 'running',",
  },
  {
    id: '5',
    bug: 'deleteQueue ignores NOT_READY PRs',
    file: 'engine/queueIndex.ts',
    from: 'const enqueued = queue.runtime.lineup.length + queue.runtime.waiting.length;',
    to: 'const enqueued = queue.runtime.lineup.length;',
  },
  {
    id: '10a',
    bug: 'cancel leaves its run running: the PR move only (the planner cancels orphaned runs in the same transaction)',
    file: 'engine/transaction/prMoves.ts',
    from: "if (runId !== null && q.runInProgress(runId)) cancelRun(q, runId, why, 'requeue');",
    to: 'void cancelRun;',
  },
  {
    id: '10b',
    bug: 'cancel leaves its run running: the planner’s orphan rule only (the PR move cancels it first)',
    file: 'engine/planner/failures.ts',
    from: "if (orphaned) cancel(run.id, 'a pull request it tested left the queue');",
    to: 'void orphaned;',
  },
  {
    id: '10',
    bug: 'cancel leaves its run running (both: the PR move and the planner’s orphan rule)',
    file: 'engine/transaction/prMoves.ts',
    from: "if (runId !== null && q.runInProgress(runId)) cancelRun(q, runId, why, 'requeue');",
    to: 'void cancelRun;',
  },
  {
    id: '11',
    bug: 'a restart of a passed PR leaves it passed',
    file: 'engine/transaction/handlers.ts',
    from: '  } else {\n    requeue(q, number, reason);\n  }\n}',
    to: '  } else {\n    void reason;\n  }\n}',
  },
  {
    id: '12',
    bug: 'paging skips a PR',
    file: 'engine/pullRequestListing.ts',
    from: 'const next = matching[start + query.take];',
    to: 'const next = matching[start + query.take + 1];',
  },
];
/** Row 10 plants both halves: the second half is 10b's. */
const ALSO: Record<string, string> = { '10': '10b' };

async function plant(dir: string, mutant: Mutant): Promise<void> {
  if (mutant.from === '') return;
  const path = join(dir, mutant.file);
  const text = await readFile(path, 'utf8');
  if (text.split(mutant.from).length !== 2) throw new Error(`${mutant.id}: the text to replace is not in ${mutant.file} exactly once`);
  await writeFile(path, text.replace(mutant.from, mutant.to));
}

async function serve(dir: string, data: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(dir, 'cli/greenline.ts'), 'serve'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      HOST: '127.0.0.1',
      PORT: '0',
      GREENLINE_LOG_LEVEL: 'warn',
      GREENLINE_DATA: data,
      GREENLINE_PROVIDER: 'sim',
      GREENLINE_API_TOKENS: `acme:${TOKEN}`,
      GREENLINE_RATE_LIMIT: '1000000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      if (found !== undefined) resolve(found);
    });
    child.on('exit', () => reject(new Error(`the server did not start: ${out}`)));
  });
  return {
    url,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function row(mutant: Mutant): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `greenline-mutant-${mutant.id}-`));
  const data = join(dir, '.data');
  try {
    for (const part of ['api', 'cli', 'engine', 'machines', 'conformance', 'web', 'package.json', 'tsconfig.json']) await cp(join(ROOT, part), join(dir, part), { recursive: true });
    await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    await plant(dir, mutant);
    const also = ALSO[mutant.id];
    if (also !== undefined) await plant(dir, MUTANTS.find((m) => m.id === also) as Mutant);
    const server = await serve(dir, data);
    try {
      const result = await runConformance({ url: server.url, token: TOKEN, runs: 15, seed: 1, waitMs: 20_000, prefix: `m${mutant.id}`, shrink: false });
      const first = result.failures[0];
      return `| ${mutant.id} | ${mutant.bug} | ${first === undefined ? (mutant.from === '' ? 'passes (no failure)' : '**not caught**') : `${first.name.slice(0, 90)}: ${first.message.slice(0, 140)}`} | ${(result.ms / 1000).toFixed(0)} s |`;
    } finally {
      await server.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const wanted = process.argv.slice(2);
console.log('| # | bug | caught by (first failure) | suite time |\n|---|---|---|---|');
for (const mutant of MUTANTS.filter((m) => wanted.length === 0 || wanted.includes(m.id))) console.log(await row(mutant));
