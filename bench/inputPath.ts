/**
 * One input's path through the engine, measured (issue 31): a submit and a failed run, followed call by call through
 * engine/ and machines/ with Node's inspector, in this tree and in an older one (`--before <commit>`, default the
 * commit before issue 31's work began), printed side by side with ratios.
 *
 * How: each tree's compiled JavaScript (`dist/`) runs in a process of its own (inputPathRun.ts); a worker thread
 * connected to its inspector (inputPathTracer.ts) sets a conditional breakpoint at the first statement of every
 * function of engine/ and machines/ and records each call while a window is open. Precise coverage with call counts
 * over the same window checks the count per function (printed: the functions, by file and name, whose counts agree;
 * V8 leaves some called functions out of a take, and names shared in a file blur the match). Limits: a call is
 * counted when its function starts (a generator or an async function resumed is not a new call; a function whose
 * body starts with a while or do loop, when it returns); functions of node_modules (XState, the store's libraries)
 * are not followed, but what they call back in the engine is; code made by `new Function` has no file and is not
 * seen (the older tree's PR tags); the in-memory store and the simulated git host stand in for LMDB and GitHub
 * (their files count as engine/ files). The figures are counts, not times: the machine's load does not move them.
 *
 * Figures, per window: calls (frames entered), the distinct files, moves (consecutive calls in different files), the
 * times the path comes back to a file it had already left, and the files it visits most (a visit: consecutive calls
 * in one file). "With returns" follows a return to the caller's file too, as someone reading the code would.
 * `npm run bench:path [-- --before <commit>]`
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Window } from './inputPathRun.js';

const ROOT = resolve(import.meta.dirname, '..');
/** The last commit before issue 31's first (3246c37, the layering rules). */
const BEFORE = (process.argv.includes('--before') && process.argv[process.argv.indexOf('--before') + 1]) || '168602a';
/** The decision side: what runs inside a transaction (the layering's rule decisions-below-effects), store aside. */
const DECISIONS = /^dist\/(machines|engine\/(model|planner|transaction))\//;

export interface PathFigures {
  calls: number;
  files: number;
  moves: number;
  returnsToLeftFile: number;
  withReturns: { moves: number; returnsToLeftFile: number };
  visits: [string, number][];
  /** Calls into a file already on the stack below another file (A → B → A), by the file called back from and into. */
  callBacks: [string, number][];
}

/** The files of the path, one per visit (consecutive calls in one file are one visit). */
function visitsOf(files: readonly string[]): string[] {
  return files.filter((file, i) => i === 0 || files[i - 1] !== file);
}

/** The path's files with returns: after a call returns, the caller's file, before the next call enters its own. */
function withReturns(window: Window): string[] {
  const files: string[] = [];
  let before: readonly string[] = [];
  for (const { stack, file } of window.hits) {
    const callers = stack.slice(0, -1);
    let common = 0;
    while (common < before.length && common < callers.length && before[common] === callers[common]) common++;
    const returnedTo = callers[common - 1];
    if (common < before.length && returnedTo !== undefined) files.push(returnedTo);
    files.push(file);
    before = stack;
  }
  return files;
}

/** The window's calls in the files `keep` accepts, their stacks too (the calls elsewhere are left out of the path). */
function scoped(window: Window, keep: (file: string) => boolean): Window {
  const hits = window.hits.filter((hit) => keep(hit.file));
  return { ...window, hits: hits.map((hit) => ({ ...hit, stack: hit.stack.filter(keep) })) };
}

export function figures(whole: Window, keep: (file: string) => boolean = () => true): PathFigures {
  const window = scoped(whole, keep);
  const files = window.hits.map((hit) => hit.file);
  const visits = visitsOf(files);
  const distinct = new Set(files).size;
  const counts = new Map<string, number>();
  for (const file of visits) counts.set(file, (counts.get(file) ?? 0) + 1);
  const callBacks = new Map<string, number>();
  for (const { stack, file } of window.hits) {
    const caller = stack[stack.length - 2];
    if (caller === undefined || caller === file || !stack.slice(0, -2).includes(file)) continue;
    const pair = `${shortFile(caller)} → ${shortFile(file)}`;
    callBacks.set(pair, (callBacks.get(pair) ?? 0) + 1);
  }
  const returned = visitsOf(withReturns(window));
  const sorted = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]);
  return {
    calls: files.length,
    files: distinct,
    moves: visits.length - 1,
    returnsToLeftFile: visits.length - distinct,
    withReturns: { moves: returned.length - 1, returnsToLeftFile: returned.length - distinct },
    visits: sorted(counts),
    callBacks: sorted(callBacks),
  };
}

function run(root: string): { windows: Window[]; armed: { breakpoints: number; scripts: number } } {
  const out = execFileSync('npx', ['tsx', join(ROOT, 'bench/inputPathRun.ts'), root], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  return JSON.parse(out);
}

/** The older tree at `commit`, built in a scratch folder with this tree's node_modules. */
function olderTree(commit: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'greenline-path-'));
  execFileSync('sh', ['-c', `git archive ${commit} | tar -x -C ${dir}`], { cwd: ROOT });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  execFileSync('npx', ['tsc', '-b', 'tsconfig.build.json'], { cwd: dir, stdio: 'inherit' });
  return dir;
}

const shortFile = (file: string) => file.replace(/^dist\//, '').replace(/\.js$/, '.ts');
const list = (counts: [string, number][], n: number) =>
  counts
    .slice(0, n)
    .map(([name, count]) => `${shortFile(name)} ${count}`)
    .join(', ');
const total = (counts: [string, number][]) => counts.reduce((sum, [, count]) => sum + count, 0);
const ratio = (now: number, then: number) => (then === 0 ? '–' : (now / then).toFixed(2));

const SCOPES: [string, (file: string) => boolean][] = [
  ['every file of engine/ and machines/', () => true],
  ['the decision side: machines/, engine/model, planner, transaction', (file) => DECISIONS.test(file)],
];

function print(window: Window, past: Window, a: PathFigures, b: PathFigures): void {
  const row = (label: string, x: number, y: number) =>
    console.log(`  ${label.padEnd(40)} ${String(x).padStart(6)} ${String(y).padStart(6)} ${ratio(x, y).padStart(6)}`);
  console.log(`${window.name}${' '.repeat(Math.max(1, 42 - window.name.length))}  now before  ratio`);
  row('calls', a.calls, b.calls);
  row('files', a.files, b.files);
  row('moves between files', a.moves, b.moves);
  row('returns to a file it had left', a.returnsToLeftFile, b.returnsToLeftFile);
  row('moves, with returns', a.withReturns.moves, b.withReturns.moves);
  row('returns to a file left, with returns', a.withReturns.returnsToLeftFile, b.withReturns.returnsToLeftFile);
  row('calls back into a file on the stack', total(a.callBacks), total(b.callBacks));
  const check = (w: Window) => `${w.covered.agreeing}/${w.covered.functions}`;
  console.log(`  coverage agrees on functions' calls: ${check(window)} now, ${check(past)} before`);
  console.log(`  most visited now: ${list(a.visits, 5)}`);
  console.log(`  most visited before: ${list(b.visits, 5)}`);
  console.log(`  calls back now: ${list(a.callBacks, 3)}`);
  console.log(`  calls back before: ${list(b.callBacks, 3)}\n`);
}

async function main(): Promise<void> {
  const older = olderTree(BEFORE);
  try {
    const now = run(ROOT);
    const then = run(older);
    console.log(`One input's path: this tree (${now.armed.breakpoints} functions in ${now.armed.scripts} files)`);
    console.log(`beside ${BEFORE} (${then.armed.breakpoints} functions in ${then.armed.scripts} files)\n`);
    for (const [scope, keep] of SCOPES) {
      console.log(`— ${scope} —\n`);
      now.windows.forEach((window, i) => {
        const past = then.windows[i];
        if (past?.name !== window.name) throw new Error(`no window ${window.name} in ${BEFORE}`);
        print(window, past, figures(window, keep), figures(past, keep));
      });
    }
  } finally {
    rmSync(older, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
