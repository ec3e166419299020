/**
 * Carries out the mutation table (test/conformance/mutants.ts): for each row, a scratch copy of the sources with its
 * patches applied (each asserted to apply exactly once), then its catchers in order until one fails on it: the
 * generated suite against a `greenline serve` of the copy (simulated git host, CI steered through setCommitStatus,
 * seed 1, interleavings unshrunk), or a named vitest file run in the copy. The unmutated copy (`none`) must pass
 * every catcher the table names. Prints the table; exits 1 when a patch does not apply, the unmutated copy fails, or
 * a row that is not an equivalent mutant survives.
 *
 *   npm run mutations -- [ids...]     (default: every row and `none`)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runConformance } from '../../conformance/run.js';
import { type Catcher, MUTANTS, type Mutant } from './mutants.js';
import { plant } from './plant.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TOKEN = 'mutation-token-0123456789abcdef';
const SEED = 1;
const SKIPPED = new Set(['node_modules', '.git', 'dist', '.data']);

/** What a run has under way (servers, vitest, scratch copies): an interrupted run ends and removes them. */
const children = new Set<ChildProcess>();
const scratch = new Set<string>();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    // Each child leads its own process group (vitest's workers and tsx's node are in it).
    for (const child of children) {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // It ended meanwhile.
      }
    }
    for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
    process.exit(130);
  });
}

/** Starts a child in a process group of its own, tracked until it exits. */
function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

interface Verdict {
  caught: boolean;
  /** What failed first (the check or test and its message), or why nothing did. */
  detail: string;
}

async function serve(dir: string, data: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(dir, 'cli/greenline.ts'), 'serve'], {
    detached: true,
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
  track(child);
  let out = '';
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      const found = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      if (found !== undefined) resolve(found);
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('exit', () => reject(new Error(`the server did not start: ${out.slice(-2000)}`)));
  });
  return {
    url,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function bySuite(dir: string, id: string): Promise<Verdict> {
  const server = await serve(dir, join(dir, '.data')).catch((error: Error) => error);
  if (server instanceof Error) return { caught: false, detail: `not run: ${server.message.slice(0, 300)}` };
  try {
    // The wait is a budget for a state the server should reach (the CLI's default); one failure ends the run.
    const result = await runConformance({
      url: server.url,
      token: TOKEN,
      runs: 15,
      seed: SEED,
      waitMs: 30_000,
      prefix: `m${id}`,
      shrink: false,
      failFast: true,
    });
    // A server of this build on the simulated host can always be steered: not being able to is a failure.
    if (result.steering !== undefined)
      return { caught: true, detail: `CI could not be steered: ${result.steering.slice(0, 160)}` };
    const first = result.failures[0];
    if (first === undefined) return { caught: false, detail: 'passed' };
    return { caught: true, detail: `${first.name.slice(0, 200)}: ${first.message.slice(0, 200)}` };
  } finally {
    await server.stop();
  }
}

interface VitestReport {
  testResults: {
    name: string;
    status: string;
    message?: string;
    assertionResults: { status: string; fullName: string; failureMessages: string[] }[];
  }[];
}

async function byVitest(dir: string, file: string): Promise<Verdict> {
  const report = join(dir, '.vitest-report.json');
  const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(
      process.execPath,
      [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', file, '--reporter=json', `--outputFile=${report}`],
      {
        cwd: dir,
        env: { ...process.env, CI: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      },
    );
    track(child);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (exit) => resolve({ code: exit, output }));
  });
  const parsed = await readFile(report, 'utf8').then(
    (text) => JSON.parse(text) as VitestReport,
    () => undefined,
  );
  if (parsed === undefined)
    return { caught: false, detail: `vitest wrote no report (exit ${code}): ${output.slice(-300)}` };
  const failed = parsed.testResults.flatMap((result) =>
    result.assertionResults.filter((test) => test.status === 'failed'),
  );
  const first = failed[0];
  if (first !== undefined) {
    const message = (first.failureMessages[0] ?? '').split('\n')[0]?.slice(0, 140);
    return { caught: true, detail: `${failed.length} failed; first: “${first.fullName.slice(0, 110)}”: ${message}` };
  }
  // A file that does not load (a planted syntax error) catches nothing: it tells nothing of the bug.
  const broken = parsed.testResults.find((result) => result.status === 'failed');
  if (broken !== undefined)
    return { caught: false, detail: `the file failed to load: ${(broken.message ?? '').slice(0, 200)}` };
  if (code !== 0) return { caught: false, detail: `vitest exited ${code} with no failed test: ${output.slice(-300)}` };
  return { caught: false, detail: 'passed' };
}

async function scratchCopy(id: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `greenline-mutant-${id}-`));
  scratch.add(dir);
  await cp(ROOT, dir, {
    recursive: true,
    filter: (source) => !SKIPPED.has(source.slice(ROOT.length).split('/')[0] ?? ''),
  });
  await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

async function runCatcher(dir: string, id: string, catcher: Catcher): Promise<Verdict> {
  return catcher === 'conformance' ? bySuite(dir, id) : byVitest(dir, catcher);
}

const nameOf = (catcher: Catcher) => (catcher === 'conformance' ? 'greenline conformance' : `\`${catcher}\``);
const seedOf = (catcher: Catcher) => (catcher === 'conformance' ? `${SEED}` : 'fixed scenarios');
const files = (mutant: Mutant) => [...new Set(mutant.patches.map((patch) => `\`${patch.file}\``))].join(', ');
const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

async function row(mutant: Mutant): Promise<{ line: string; ok: boolean }> {
  const started = Date.now();
  const dir = await scratchCopy(mutant.id);
  try {
    await plant(dir, mutant.patches);
    let caughtBy: Catcher | undefined;
    let detail = '';
    const passed: string[] = [];
    for (const catcher of mutant.by) {
      const verdict = await runCatcher(dir, mutant.id, catcher);
      if (verdict.caught) {
        caughtBy = catcher;
        detail = verdict.detail;
        break;
      }
      passed.push(`${nameOf(catcher)} (${verdict.detail})`);
    }
    const seconds = `${((Date.now() - started) / 1000).toFixed(0)} s`;
    const verdict =
      caughtBy !== undefined
        ? `**${nameOf(caughtBy)}**: ${detail}`
        : mutant.equivalent === true
          ? 'survives (equivalent mutant)'
          : '**NOT CAUGHT**';
    const missed = passed.length === 0 ? '' : `; not caught by ${passed.join(', ')}`;
    const why = mutant.note === undefined ? '' : ` — ${mutant.note}`;
    const line = `| ${mutant.id} | ${mutant.area} | ${files(mutant)} | ${cell(mutant.bug)} | ${cell(verdict + missed + why)} | ${caughtBy === undefined ? '–' : seedOf(caughtBy)} | ${seconds} |`;
    return { line, ok: caughtBy !== undefined || mutant.equivalent === true };
  } finally {
    await rm(dir, { recursive: true, force: true });
    scratch.delete(dir);
  }
}

/** The unmutated copy: every catcher the chosen rows name must pass on it. */
async function unmutated(rows: readonly Mutant[]): Promise<{ line: string; ok: boolean }> {
  const started = Date.now();
  const dir = await scratchCopy('none');
  try {
    const catchers = [...new Set(rows.flatMap((mutant) => mutant.by))];
    const results: string[] = [];
    let ok = true;
    for (const catcher of catchers) {
      const verdict = await runCatcher(dir, 'none', catcher);
      ok &&= !verdict.caught && verdict.detail === 'passed';
      results.push(`${nameOf(catcher)}: ${verdict.caught ? `FAILED ${verdict.detail}` : verdict.detail}`);
    }
    return {
      line: `| none | – | – | no bug: every catcher must pass | ${cell(results.join('; '))} | ${SEED} | ${((Date.now() - started) / 1000).toFixed(0)} s |`,
      ok,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
    scratch.delete(dir);
  }
}

async function main(): Promise<number> {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((id) => id !== 'none' && !MUTANTS.some((mutant) => mutant.id === id));
  if (unknown.length > 0) throw new Error(`no such rows: ${unknown.join(', ')}`);
  const rows = MUTANTS.filter((mutant) => wanted.length === 0 || wanted.includes(mutant.id));
  // Every patch must apply before anything runs: a table that drifted from the sources fails here, loudly.
  const check = await mkdtemp(join(tmpdir(), 'greenline-mutant-check-'));
  scratch.add(check);
  try {
    for (const mutant of MUTANTS) {
      const copies = [...new Set(mutant.patches.map((patch) => patch.file))];
      for (const file of copies) await cp(join(ROOT, file), join(check, mutant.id, file), { recursive: true });
      await plant(join(check, mutant.id), mutant.patches).catch((error: Error) => {
        throw new Error(`row ${mutant.id}: ${error.message}`);
      });
    }
  } finally {
    await rm(check, { recursive: true, force: true });
  }
  console.log(`mutation table: ${rows.length} rows, seed ${SEED} (${new Date().toISOString()})`);
  console.log('| # | area | file | planted | caught by (first failure) | seed | time |\n|---|---|---|---|---|---|---|');
  let failed = 0;
  const ranNone = wanted.length === 0 || wanted.includes('none');
  if (ranNone) {
    // `none` alone: every catcher of the table; with rows: theirs.
    const result = await unmutated(rows.length === 0 ? MUTANTS : rows);
    console.log(result.line);
    if (!result.ok) failed++;
  }
  for (const mutant of rows) {
    const result = await row(mutant);
    console.log(result.line);
    if (!result.ok) failed++;
  }
  const counted = rows.filter((mutant) => mutant.equivalent !== true);
  console.log(
    `\n${counted.length} rows counted (${rows.length - counted.length} equivalent); ${failed === 0 ? `every row caught${ranNone ? ', the unmutated copy passes' : ''}` : `${failed} failed`}`,
  );
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`mutations: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
