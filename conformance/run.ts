/**
 * The conformance suite against one server: the generated paths of the PR, queue, test-run and bisection machines, the
 * interleavings of many PRs with the safety properties, and the spec's checks; then coverage and failures.
 */
import { type Actuator, pullRequestActuator, queueActuator, testRunActuator } from './actuators.js';
import { API } from './alphabets.js';
import { bisectionActuator } from './bisectionActuator.js';
import { ApiClient } from './client.js';
import { coverageOf, type MachineCoverage, type MachineKey } from './coverage.js';
import { runInterleavings } from './interleavings.js';
import { generatePaths, selectPaths } from './paths.js';
import { QueueApi } from './queueApi.js';
import { type Failure, type PathResult, runPath } from './runPaths.js';
import { runSpecChecks } from './specChecks.js';

export interface ConformanceOptions {
  url: string;
  token: string;
  /** Every path of the transition cover, not only those that add an edge. */
  allPaths?: boolean;
  /** Interleaving runs (fast-check) and their seed. */
  runs: number;
  seed: number;
  /** How long to wait for the server to reach a state before calling it a failure. */
  waitMs: number;
  /** Queue branches begin with it (default: conformance-<time>). */
  prefix?: string;
  /** Shrink a failing interleaving to a minimal one (default); false stops at the first failure (a mutation run). */
  shrink?: boolean;
  /** Stop at the first failure, leaving the rest unrun (a mutation run: one failure is the answer). */
  failFast?: boolean;
  /** Which parts: the generated paths, the interleavings, the spec's checks (default: all). */
  parts?: readonly Part[];
  log?: (line: string) => void;
}

export type Part = 'paths' | 'interleavings' | 'spec';

export interface Check {
  name: string;
  ms: number;
  failure?: Failure;
}

export interface ConformanceResult {
  /** Why CI could not be steered (absent: it could, or was not tried): the paths and interleavings were left out. */
  steering?: string;
  paths: PathResult[];
  checks: Check[];
  coverage: MachineCoverage[];
  failures: Failure[];
  ms: number;
}

const ACTUATORS: Record<MachineKey, () => Actuator> = {
  pullRequest: () => pullRequestActuator,
  queue: queueActuator,
  testRun: () => testRunActuator,
  bisection: () => bisectionActuator,
};

export async function runConformance(options: ConformanceOptions): Promise<ConformanceResult> {
  const started = Date.now();
  const client = new ApiClient(options.url, options.token);
  const prefix = options.prefix ?? `conformance-${started.toString(36)}`;
  const parts = new Set(options.parts ?? ['paths', 'interleavings', 'spec']);
  const log = options.log ?? (() => {});
  const paths: PathResult[] = [];
  const checks: Check[] = [];
  const steering =
    parts.has('paths') || parts.has('interleavings') ? await probeSteering(client, prefix, options.waitMs) : undefined;
  if (steering !== undefined) {
    log(`CI cannot be steered (${steering}): the spec's checks only`);
    parts.delete('paths');
    parts.delete('interleavings');
  }
  const failed = () =>
    options.failFast === true && [...paths, ...checks].some((result) => result.failure !== undefined);
  if (parts.has('paths')) {
    for (const machine of Object.keys(API) as MachineKey[]) {
      if (failed()) break;
      const alphabet = API[machine];
      const actuator = ACTUATORS[machine]();
      const selected = selectPaths(alphabet, generatePaths(alphabet), options.allPaths === true);
      log(`${machine}: ${selected.length} paths`);
      for (const [index, path] of selected.entries()) {
        if (failed()) break;
        const result = await runPath(client, machine, alphabet, actuator, path, index, {
          prefix,
          waitMs: options.waitMs,
        });
        paths.push(result);
        if (result.failure !== undefined) log(`  FAIL ${result.name}: ${result.failure.message}`);
      }
    }
  }
  if (parts.has('spec') && !failed()) {
    for (const check of await runSpecChecks(client, {
      prefix,
      waitMs: options.waitMs,
      failFast: options.failFast === true,
    })) {
      checks.push(check);
      log(
        `spec: ${check.failure === undefined ? 'ok  ' : 'FAIL'} ${check.name}${check.failure === undefined ? '' : `: ${check.failure.message}`}`,
      );
    }
  }
  if (parts.has('interleavings') && !failed()) {
    const at = Date.now();
    const result = await runInterleavings(client, {
      runs: options.runs,
      seed: options.seed,
      waitMs: options.waitMs,
      prefix,
      log,
      shrink: options.shrink !== false,
    });
    checks.push({
      name: `interleavings: ${result.runs} runs, seed ${result.seed}`,
      ms: Date.now() - at,
      ...(result.failure === undefined ? {} : { failure: result.failure }),
    });
    log(
      `interleavings: ${result.runs} runs, seed ${result.seed}${result.failure === undefined ? '' : `: FAIL ${result.failure.message}`}`,
    );
  }
  const coverage = (Object.keys(API) as MachineKey[]).map((machine) => coverageOf(machine, paths));
  const failures = [...paths, ...checks].flatMap((result) => (result.failure === undefined ? [] : [result.failure]));
  if (parts.has('paths') && !failed()) {
    for (const c of coverage)
      for (const edge of c.missed)
        failures.push({
          name: `coverage ${c.machine}`,
          message: `reachable through the API, not reached: ${edge}`,
          curl: '',
        });
  }
  return {
    ...(steering === undefined ? {} : { steering }),
    paths,
    checks,
    coverage,
    failures,
    ms: Date.now() - started,
  };
}

/**
 * Whether the suite can steer CI: a PR submitted to a running queue of its own starts testing and a status on its
 * run's SHA is accepted. Undefined if so, else why not (a server on a real git host, statuses from real CI).
 */
async function probeSteering(client: ApiClient, prefix: string, waitMs: number): Promise<string | undefined> {
  const api = new QueueApi(client, `${prefix}-probe`, waitMs);
  try {
    await api.create({ state: 'running' });
    await api.submit(1);
    const pr = await api.waitPr(1, 'TESTING');
    await api.status(pr.testRunId ?? '', 'conformance-probe', 'pending');
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await api.call('cancelPullRequest', { pr: { number: 1 } });
    await api.call('deleteQueue');
  }
}
