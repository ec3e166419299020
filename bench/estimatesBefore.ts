/**
 * The merge estimate as another revision has it (default `main`), for bench/estimates.ts to measure beside this
 * checkout's in the same run: engine/estimate/ of that revision (`git show`) is written under node_modules/.cache,
 * its imports of the rest of the engine pointed at this checkout's, and imported.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Engine, QueueKey } from '../engine/engine.js';
import type { MergeEstimate } from '../engine/estimate/index.js';
import type { PullRequestRecord } from '../engine/model/pullRequests.js';
import type { QueueRecord } from '../engine/model/queues.js';
import type { TestRunRecord } from '../engine/model/testRuns.js';
import type { ReadTx, Store } from '../engine/store/store.js';

type EstimateQueue = (
  tx: ReadTx,
  queue: QueueRecord,
  enqueued: readonly PullRequestRecord[],
  runOf: (runId: string) => TestRunRecord | undefined,
  now: number,
) => Map<number, MergeEstimate>;

const root = fileURLToPath(new URL('..', import.meta.url));

/** The revision's estimateQueue, loaded once per revision. */
export async function estimatorAt(
  revision: string,
): Promise<(engine: Engine, key: QueueKey) => Map<number, MergeEstimate>> {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' });
  const commit = git('rev-parse', '--verify', `${revision}^{commit}`).trim();
  const dir = `${root}node_modules/.cache/greenline-estimates/${commit}/engine/estimate/`;
  mkdirSync(dir, { recursive: true });
  const engineDir = pathToFileURL(`${root}engine/`).href;
  for (const name of git('ls-tree', '--name-only', `${commit}:engine/estimate`)
    .split('\n')
    .filter((file) => file.endsWith('.ts'))) {
    const source = git('show', `${commit}:engine/estimate/${name}`).replace(/from '\.\.\//g, `from '${engineDir}`);
    writeFileSync(`${dir}${name}`, source);
  }
  const { estimateQueue } = (await import(pathToFileURL(`${dir}index.ts`).href)) as { estimateQueue: EstimateQueue };
  return (engine, key) => {
    const { queue, enqueued } = engine.getQueue(key);
    // The engine's reads go through its store, which it keeps to itself: a benchmark reaches in.
    const store = (engine as unknown as { store: Store }).store;
    return store.read((tx) =>
      estimateQueue(tx, queue, enqueued, (runId) => engine.testRun(queue.id, runId), engine.scheduler.now()),
    );
  };
}
