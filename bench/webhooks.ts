/**
 * What outgoing webhooks cost the merge queue: PRs driven through their whole life (submitted, tested, passed,
 * merged) on LMDB, on a virtual clock, with no endpoint (the baseline, measured in the same run), with one endpoint
 * whose receiver on loopback verifies every signature (standardwebhooks), and with one whose receiver is down
 * (messages wait and are retried). Prints milliseconds per PR and the ratio to the baseline, and the messages sent.
 * `npm run bench:webhooks [-- PRS]` (default 200).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Engine, type QueueKey } from '../engine/engine.js';
import { VirtualScheduler } from '../engine/runtime/scheduler.js';
import { openLmdbStore } from '../engine/store/index.js';
import { Receiver } from '../test/notifications/receiver.js';

const PRS = Number(process.argv[2] ?? 200);
const KEY: QueueKey = { org: 'bench', repo: { host: 'github.com', owner: 'bench', name: 'hooks' }, branch: 'main' };

type Setup = 'none' | 'receiver up' | 'receiver down';

async function run(setup: Setup): Promise<{ msPerPr: number; messages: number; received: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'greenline-bench-webhooks-'));
  const store = openLmdbStore({ dir });
  const receiver = new Receiver();
  await receiver.up();
  const engine = new Engine(store, {
    scheduler: new VirtualScheduler(Date.now()),
    webhooks: { allowPrivate: true },
    onError: () => undefined,
  });
  engine.start();
  try {
    if (setup !== 'none') receiver.secret = engine.webhooks.create(KEY.org, { url: receiver.url }).secret;
    if (setup === 'receiver down') await receiver.down();
    engine.createQueue(KEY, { requiredStatuses: ['ci'] });
    await engine.settle();
    const started = performance.now();
    for (let number = 1; number <= PRS; number++) {
      engine.submitPullRequest(KEY, number);
      await engine.settle();
      const runId = engine.getSubmittedPullRequest(KEY, number).pr.runId ?? '';
      const { run } = engine.getTestRun(KEY, runId);
      engine.setCommitStatus(KEY.org, { repo: KEY.repo, sha: run.testBranchSha, context: 'ci', state: 'success' });
      await engine.settle();
      if (engine.getSubmittedPullRequest(KEY, number).pr.state !== 'MERGED')
        throw new Error(`PR ${number} did not merge`);
    }
    const elapsed = performance.now() - started;
    const messages = store.read((tx) => tx.count('webhookMessages'));
    return { msPerPr: elapsed / PRS, messages, received: receiver.events.length };
  } finally {
    engine.stop();
    await engine.settle();
    await receiver.down();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const results: [Setup, Awaited<ReturnType<typeof run>>][] = [];
for (const setup of ['none', 'receiver up', 'receiver down'] as const) results.push([setup, await run(setup)]);
const baseline = results[0]?.[1].msPerPr ?? 1;
console.log(`${PRS} PRs, each submitted, tested, passed and merged (LMDB, one sync per commit)`);
console.log('endpoint        ms/PR   × baseline   messages   received (verified)');
for (const [setup, result] of results) {
  console.log(
    `${setup.padEnd(14)} ${result.msPerPr.toFixed(2).padStart(6)}   ${(result.msPerPr / baseline).toFixed(2).padStart(10)}   ${String(result.messages).padStart(8)}   ${String(result.received).padStart(8)}`,
  );
}
