/**
 * The engine's cost per event at a given queue depth (issue 15): a queue held at about D queued PRs while PRs keep
 * arriving and runs keep passing (each arrival and each verdict several engine inputs: the submission, the git
 * host's answers, the CI status, the merge), in single and parallel mode, beside raw XState transitions per second
 * measured in the same run. In-memory store, simulated git host, virtual clock: the engine alone.
 * `npm run bench:engine`; also part of `npm run bench`.
 */
import { pathToFileURL } from 'node:url';
import { Engine, type QueueKey } from '../engine/engine.js';
import { SimGitHost } from '../engine/providers/sim/simGitHost.js';
import { VirtualScheduler } from '../engine/runtime/scheduler.js';
import { createMemoryStore } from '../engine/store/index.js';
import { random, rawXState, type Figure } from './measure.js';

const KEY: QueueKey = { org: 'bench', repo: { host: 'bench.invalid', owner: 'bench', name: 'repo' }, branch: 'main' };
const TARGETS = 1_000;

/** Engine events per second with the queue held at `depth` queued PRs, over `steps` arrivals (and as many merges). */
export async function atDepth(depth: number, parallel: boolean, steps: number): Promise<Figure & { depth: number }> {
  const scheduler = new VirtualScheduler(Date.parse('2026-11-24T00:00:00Z'));
  const gitHost = new SimGitHost();
  const engine = new Engine(createMemoryStore(), {
    scheduler,
    gitHost,
    onError: (message, error) => {
      throw new Error(`${message}: ${String(error)}`);
    },
  });
  engine.start();
  engine.createQueue(KEY, {
    requiredStatuses: ['ci'],
    concurrency: 4,
    ...(parallel ? { mode: 'parallel' as const } : {}),
  });
  await engine.settle();
  const next = random(7);
  let number = 0;
  const submit = async () => {
    number++;
    engine.submitPullRequest(KEY, number);
    if (parallel) {
      const facts = await gitHost.pullRequest(KEY.repo, number, KEY.branch);
      engine.setImpactedTargets(KEY, { number, sha: facts.sha }, [
        `//t${Math.floor(next() * TARGETS)}`,
        `//t${Math.floor(next() * TARGETS)}`,
      ]);
    }
    await engine.settle();
  };
  for (let i = 0; i < depth; i++) await submit();
  let events = 0;
  engine.onInput(() => events++);
  const passOldest = async () => {
    const { enqueued } = engine.getQueue(KEY);
    const testing = enqueued.find((pr) => pr.state === 'TESTING' && pr.runId !== null);
    if (testing === undefined) return;
    const { run } = engine.getTestRun(KEY, testing.runId as string);
    engine.setCommitStatus(KEY.org, { repo: KEY.repo, sha: run.testBranchSha, context: 'ci', state: 'success' });
    await engine.settle();
  };
  const start = process.hrtime.bigint();
  for (let i = 0; i < steps; i++) {
    await submit();
    await passOldest();
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  engine.stop();
  return {
    name: `engine events, ${parallel ? 'parallel' : 'single'} mode, ${depth} queued`,
    operations: events,
    seconds,
    depth,
  };
}

export async function benchEngine(): Promise<void> {
  let xstate = await rawXState();
  for (let again = 0; again < 2; again++) {
    const next = await rawXState();
    if (next.operations / next.seconds > xstate.operations / xstate.seconds) xstate = next;
  }
  await atDepth(20, false, 100); // warm-up: the first queue pays for compiling the engine
  await atDepth(20, true, 100);
  const rate = (figure: Figure) => figure.operations / figure.seconds;
  console.log(
    '\nthe engine at depth: events per second, beside raw XState transitions and the shallow rate of the same mode',
  );
  console.log(
    `${'case'.padEnd(48)} ${'events/s'.padStart(10)} ${'vs XState'.padStart(10)} ${'vs shallow'.padStart(11)}`,
  );
  console.log(`${xstate.name.padEnd(48)} ${rate(xstate).toFixed(0).padStart(10)} ${'baseline'.padStart(10)}`);
  for (const parallel of [false, true]) {
    let shallow = 0;
    for (const depth of [20, 100, 300, 600]) {
      // The best of three: the machine is shared, and a slow run says more about the neighbours than the engine.
      let figure = await atDepth(depth, parallel, depth >= 300 ? 60 : 150);
      for (let again = 0; again < 2; again++) {
        const next = await atDepth(depth, parallel, depth >= 300 ? 60 : 150);
        if (rate(next) > rate(figure)) figure = next;
      }
      if (depth === 20) shallow = rate(figure);
      console.log(
        `${figure.name.padEnd(48)} ${rate(figure).toFixed(0).padStart(10)} ${`${(rate(figure) / rate(xstate)).toFixed(3)}×`.padStart(10)} ${`${(rate(figure) / shallow).toFixed(2)}×`.padStart(11)}`,
      );
    }
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(`node ${process.version}, ${process.platform}/${process.arch}`);
  await benchEngine();
}
