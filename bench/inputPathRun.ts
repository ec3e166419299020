/**
 * One tree's run of bench/inputPath.ts, in a process of its own: loads the tree's compiled engine (`<root>/dist`),
 * starts the tracer (inputPathTracer.ts) and drives a queue through one submit and one failed run, tracing each
 * measured call. Prints the traced calls of each window as JSON on stdout.
 * `tsx bench/inputPathRun.ts <root>`
 */
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Hit } from './inputPathTracer.js';

export interface Window {
  name: string;
  hits: Hit[];
  /** Functions precise coverage saw called in the same window, and how many of them the breakpoints counted alike. */
  covered: { functions: number; agreeing: number };
}

const root = process.argv[2];
if (root === undefined) throw new Error('usage: inputPathRun.ts <root of a tree with dist/ built>');
const dist = `${root}/dist`;
const load = (path: string) => import(pathToFileURL(`${dist}/${path}`).href);
const { Engine } = await load('engine/engine.js');
const { VirtualScheduler } = await load('engine/runtime/scheduler.js');
const { createMemoryStore } = await load('engine/store/index.js');

const prefixes = ['engine/', 'machines/'].map((folder) => pathToFileURL(`${dist}/${folder}`).href);
// The tracer is TypeScript: the worker registers tsx's loader before it imports it.
const tracer = new URL('./inputPathTracer.ts', import.meta.url).href;
const entry = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ register }) => {
  register();
  return import(${JSON.stringify(tracer)});
});`;
const worker = new Worker(entry, { eval: true, workerData: { prefixes, root } });
const replies: ((message: { kind: string }) => void)[] = [];
worker.on('message', (message) => replies.shift()?.(message));
worker.on('error', (error) => {
  throw error;
});
const reply = <T>(): Promise<T> => new Promise((resolve) => replies.push(resolve as (message: unknown) => void));
const ask = <T>(kind: string): Promise<T> => {
  const answer = reply<T>();
  worker.postMessage({ kind });
  return answer;
};
await reply();
const armed = await ask<{ breakpoints: number; scripts: number }>('arm');

const engine = new Engine(createMemoryStore(), {
  scheduler: new VirtualScheduler(Date.parse('2026-11-26T00:00:00Z')),
  onError: (message: string, error: unknown) => {
    throw new Error(`${message}: ${String(error)}`);
  },
});
engine.start();

const windows: Window[] = [];
const globals = globalThis as { __inputPath?: boolean };
/** Traces what `call` runs in the engine (and, with `quiet`, what follows until no effect is left to run). */
async function measure(name: string, quiet: boolean, call: () => unknown): Promise<void> {
  await ask('begin');
  globals.__inputPath = true;
  await call();
  if (quiet) await engine.settle();
  globals.__inputPath = false;
  const { hits, covered } = await ask<{ hits: Hit[]; covered: Window['covered'] }>('end');
  windows.push({ name, hits, covered });
}

/** PRs 1 and 2 submitted to a new queue and tested together in one run, which fails: a bisection splits them. */
async function scenario(name: string, quiet: boolean): Promise<string[]> {
  const key = { org: 'path', repo: { host: 'path.invalid', owner: 'path', name }, branch: 'main' };
  engine.createQueue(key, { requiredStatuses: ['ci'], batch: true, batchingMinSize: 2, batchingMaxWaitTimeMinutes: 1 });
  engine.submitPullRequest(key, 1);
  await engine.settle();
  const then = quiet ? ', and what follows until quiet' : ' (one input)';
  await measure(`submit${then}`, quiet, () => engine.submitPullRequest(key, 2));
  await engine.settle();
  const runId = engine.getQueue(key).enqueued.find((pr: { runId: string | null }) => pr.runId !== null)?.runId;
  if (runId === undefined) throw new Error('no run started for PRs 1 and 2');
  const { run } = engine.getTestRun(key, runId);
  const failure = { repo: key.repo, sha: run.testBranchSha, context: 'ci', state: 'failure' };
  await measure(`failed run${then}`, quiet, () => engine.setCommitStatus(key.org, failure));
  await engine.settle();
  return engine.getQueue(key).enqueued.map((pr: { number: number; state: string }) => `${pr.number}:${pr.state}`);
}

const states = [await scenario('inputs', false), await scenario('chains', true)];

engine.stop();
await worker.terminate();
process.stdout.write(`${JSON.stringify({ armed, states, windows })}\n`);
