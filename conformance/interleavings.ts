/**
 * Interleavings of many PRs and queue changes (fast-check), with the safety properties checked from outside only:
 * nothing broken merges; every merge is the tree its deciding run tested; nothing acknowledged is lost; no good PR is
 * removed without a flake; the queue's and the PRs' states are always ones the lifecycles allow. CI is the suite: a
 * run passes when every PR of its tree (tested and base) is good, unless the command says it flakes. A failure
 * shrinks to a minimal command sequence, printed as the curl calls of its last (smallest) run.
 */
import fc from 'fast-check';
import type { ApiClient } from './client.js';
import { ConformanceFailure, QueueApi, type RunView } from './queueApi.js';
import type { Failure } from './runPaths.js';
import { checkProperties } from './properties.js';
import { newWorld, type Observation, observe, runOf, settle, targetsOf, type World } from './world.js';

export type Command =
  | { kind: 'submit'; pr: number }
  | { kind: 'cancel'; pr: number }
  | { kind: 'restart'; pr: number }
  | { kind: 'ci'; pick: number }
  | { kind: 'flake'; pick: number }
  | { kind: 'state'; state: 'running' | 'paused' | 'draining' }
  | { kind: 'mode'; mode: 'single' | 'parallel' };

const PRS = 6;
const pr = fc.integer({ min: 1, max: PRS });
const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 5, arbitrary: pr.map((n) => ({ kind: 'submit' as const, pr: n })) },
  { weight: 1, arbitrary: pr.map((n) => ({ kind: 'cancel' as const, pr: n })) },
  { weight: 1, arbitrary: pr.map((n) => ({ kind: 'restart' as const, pr: n })) },
  { weight: 4, arbitrary: fc.nat(3).map((pick) => ({ kind: 'ci' as const, pick })) },
  { weight: 1, arbitrary: fc.nat(3).map((pick) => ({ kind: 'flake' as const, pick })) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('running' as const, 'paused' as const, 'draining' as const)
      .map((state) => ({ kind: 'state' as const, state })),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom('single' as const, 'parallel' as const).map((mode) => ({ kind: 'mode' as const, mode })),
  },
);

export const scenario = fc.record({
  settings: fc.record({
    mode: fc.constantFrom('single', 'parallel'),
    concurrency: fc.integer({ min: 1, max: 3 }),
    // Batches of what waits: a larger batchingMinSize waits batchingMaxWaitTimeMinutes (at least a minute) for more.
    batch: fc.boolean(),
    batchingMinSize: fc.constant(1),
    // Absent: the queue's default (0, which the API does not accept as a value: 1 to 2^32 − 1).
    pendingFailureDepth: fc.option(fc.integer({ min: 1, max: 2 }), { nil: undefined }),
    canOptimisticallyMerge: fc.boolean(),
  }),
  // About one PR in four is broken (shrinking towards good ones).
  bad: fc.array(
    fc.integer({ min: 0, max: 3 }).map((n) => n === 3),
    { minLength: PRS, maxLength: PRS },
  ),
  commands: fc.array(command, { minLength: 1, maxLength: 14 }),
});

export type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

const GOOD = [false, false, false, false, false, false];
const TWO_AT_ONCE = {
  mode: 'single',
  concurrency: 2,
  batch: false,
  batchingMinSize: 1,
  pendingFailureDepth: undefined,
} as const;

/**
 * Fixed interleavings, run first in every run (fast-check's `examples`), for the safety rules random ones reach only
 * by chance: two PRs tested at once, the second on top of the first; and a PR that flakes twice under anti-flake.
 */
export const EXAMPLES: Scenario[] = [
  // Optimistic merge: #1 is broken; #2's run behind it has not passed (it has no result yet), so nothing vouches for #1.
  {
    settings: { ...TWO_AT_ONCE, canOptimisticallyMerge: true },
    bad: [true, ...GOOD.slice(1)],
    commands: [
      { kind: 'submit', pr: 1 },
      { kind: 'submit', pr: 2 },
      { kind: 'ci', pick: 0 },
    ],
  },
  // #2's run (on top of broken #1) fails first: its failure is not its own until #1's result is in, so it is not kicked.
  {
    settings: { ...TWO_AT_ONCE, canOptimisticallyMerge: false },
    bad: [true, ...GOOD.slice(1)],
    commands: [
      { kind: 'submit', pr: 1 },
      { kind: 'submit', pr: 2 },
      { kind: 'ci', pick: 1 },
    ],
  },
  // #2's run (on top of #1, both good) passes first: #2 merges only after #1, the tree its run tested.
  {
    settings: { ...TWO_AT_ONCE, canOptimisticallyMerge: false },
    bad: GOOD,
    commands: [
      { kind: 'submit', pr: 1 },
      { kind: 'submit', pr: 2 },
      { kind: 'ci', pick: 1 },
    ],
  }, // Anti-flake depth 1: good #1 flakes twice (its run, then its retest); it needs a third failed run to be removed.
  {
    settings: { ...TWO_AT_ONCE, concurrency: 1, canOptimisticallyMerge: false, pendingFailureDepth: 1 },
    bad: GOOD,
    commands: [
      { kind: 'submit', pr: 1 },
      { kind: 'flake', pick: 0 },
      { kind: 'flake', pick: 0 },
    ],
  },
];

/** The run a CI command reports on: the `pick`-th in progress, in a stable order. */
async function pickRun(world: World, pick: number): Promise<{ id: string; run: RunView } | undefined> {
  const runs = await world.inProgressRuns();
  return runs.length === 0 ? undefined : runs[pick % runs.length];
}

async function apply(world: World, cmd: Command): Promise<void> {
  const { api } = world;
  switch (cmd.kind) {
    case 'submit': {
      const answer = await api.call('submitPullRequest', { pr: { number: cmd.pr } });
      if (answer.status !== 200) return;
      const view = await api.pr(cmd.pr);
      // A PR submitted again after it left the queue starts a new lifecycle, which the listing shows instead.
      for (const [id, number] of world.acknowledged)
        if (number === cmd.pr && id !== view.id) world.acknowledged.delete(id);
      world.acknowledged.set(view.id ?? String(cmd.pr), cmd.pr);
      if ((await api.queue()).mode === 'parallel')
        await api.call('setImpactedTargets', {
          pr: { number: cmd.pr, sha: view.prSha },
          impactedTargets: targetsOf(cmd.pr),
        });
      return;
    }
    case 'cancel': {
      const before = await api.call<{ id?: string; state?: string; testRunId?: string }>('getSubmittedPullRequest', {
        pr: { number: cmd.pr },
      });
      const answer = await api.call('cancelPullRequest', { pr: { number: cmd.pr } });
      if (answer.status !== 200 || before.body.id === undefined) return;
      world.cancelled.add(before.body.id);
      // The run it was testing tests a tree that will not merge: the cancel ends it (the others it tested go back).
      if (before.body.state === 'TESTING' && before.body.testRunId)
        await runEndedBy(world, before.body.testRunId, `the cancel of PR #${cmd.pr}`);
      return;
    }
    case 'restart': {
      const before = await api.call<{ state?: string; testRunId?: string }>('getSubmittedPullRequest', {
        pr: { number: cmd.pr },
      });
      const answer = await api.call('restartTestsOnPullRequest', { pr: { number: cmd.pr } });
      // Its tests start again in a new run: the old one no longer decides anything.
      if (answer.status === 200 && before.body.state === 'TESTING' && before.body.testRunId)
        await runEndedBy(world, before.body.testRunId, `the restart of PR #${cmd.pr}`);
      return;
    }
    case 'ci':
    case 'flake': {
      const picked = await pickRun(world, cmd.pick);
      if (picked === undefined) return;
      const tree = world.treeOf(picked.run);
      const good = tree.every((n) => !world.bad[n - 1]);
      if (cmd.kind === 'flake' && good) for (const n of tree) world.flaked.add(n);
      await api.status(picked.id, 'ci', good && cmd.kind === 'ci' ? 'success' : 'failure');
      return;
    }
    case 'state': {
      const queue = await api.update({ state: cmd.state });
      world.requested = cmd.state;
      const allowed =
        cmd.state === 'draining' ? ['draining', 'paused', 'switching_modes'] : [cmd.state, 'switching_modes'];
      if (!allowed.includes(queue.state))
        throw new ConformanceFailure(`updateQueue state ${cmd.state} answered state ${queue.state}`);
      return;
    }
    case 'mode':
      await api.update({ mode: cmd.mode });
      return;
  }
}

/**
 * A run that tested a PR which left the queue must not stay in progress: it would hold a place of the queue's
 * concurrency and CI's machines for a tree that never merges, and a status reported on it later must decide nothing.
 * Seen only here: a run in progress is otherwise found through the PRs it tests, and it tests none any more.
 */
export async function runEndedBy(world: World, runId: string, what: string): Promise<void> {
  const run = await world.api.run(runId);
  world.runs.set(runId, { id: runId, ...runOf(run) });
  if ((run.status ?? 'in_progress') === 'in_progress')
    throw new ConformanceFailure(`run ${runId} is still in progress after ${what}, which it was testing`);
}

export interface InterleavingsResult {
  runs: number;
  failure?: Failure;
  seed: number;
}

export async function runInterleavings(
  client: ApiClient,
  options: {
    runs: number;
    seed: number;
    waitMs: number;
    prefix: string;
    log?: (line: string) => void;
    shrink?: boolean;
  },
): Promise<InterleavingsResult> {
  let attempt = 0;
  let last: Failure | undefined;
  const property = fc.asyncProperty(scenario, async (s) => {
    const began = Date.now();
    const api = new QueueApi(client, `${options.prefix}-mix-${attempt++}`, options.waitMs);
    const mark = client.mark();
    const world = newWorld(api, s.bad);
    try {
      await api.create(Object.fromEntries(Object.entries(s.settings).filter(([, value]) => value !== undefined)));
      const history: Observation[] = [];
      for (const cmd of s.commands) {
        await apply(world, cmd);
        history.push(await observe(world));
      }
      history.push(...(await settle(world)));
      checkProperties(world, history, s.settings.pendingFailureDepth ?? 0);
      options.log?.(
        `  interleaving ${attempt}: ${s.commands.length} commands, ${world.acknowledged.size} PRs, ${Date.now() - began} ms`,
      );
    } catch (error) {
      last = {
        name: `interleaving ${JSON.stringify(s)}`,
        message: error instanceof Error ? error.message : String(error),
        curl: client.curl(client.since(mark)),
      };
      throw error;
    }
  });
  const details = await fc.check(property, {
    numRuns: options.runs,
    seed: options.seed,
    examples: EXAMPLES.map((example) => [example]),
    ...(options.shrink === false ? { endOnFailure: true } : {}),
  });
  if (!details.failed) return { runs: details.numRuns, seed: options.seed };
  const minimal = details.counterexample?.[0];
  return {
    runs: details.numRuns,
    seed: options.seed,
    failure: {
      name: `interleaving (seed ${options.seed}, shrunk ${details.numShrinks} times): ${JSON.stringify(minimal?.commands ?? [])} on ${JSON.stringify(minimal?.settings ?? {})}, broken PRs [${(minimal?.bad ?? []).flatMap((b, i) => (b ? [i + 1] : [])).join(', ')}]`,
      message: last?.message ?? String(details.errorInstance),
      curl: last?.curl ?? '',
    },
  };
}
