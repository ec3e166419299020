/** What the local host keeps apart: organizations, the service's secrets, hooks in repositories, leftover processes. */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { EngineError } from '../../engine/model/errors.js';
import { alive, GitQueue, KEY } from './helpers.js';

let queue: GitQueue | undefined;
afterEach(async () => {
  vi.unstubAllEnvs();
  await queue?.close();
  queue = undefined;
});

describe('isolation on the local host', () => {
  test("a repository belongs to one organization: another's createQueue for it is a conflict", async () => {
    const q = (queue = await GitQueue.create());
    await q.create();
    const other = { ...KEY, org: 'globex' };
    await expect(q.engine.prepareRepository(other)).rejects.toThrow(EngineError);
    await expect(q.engine.prepareRepository(other)).rejects.toThrow(/another organization/);
    // The same organization may add queues for other branches of it.
    await expect(q.engine.prepareRepository({ ...KEY, branch: 'release' })).resolves.toBeUndefined();
  });

  test('hooks in the repository never run as Greenline', async () => {
    const q = (queue = await GitQueue.create());
    await q.create({ requiredStatuses: ['ci'] });
    const marker = join(q.root, 'hook-ran');
    for (const hook of ['reference-transaction', 'post-checkout', 'post-commit']) {
      const path = join(q.host.repositoryPath(KEY.repo), 'hooks', hook);
      await writeFile(path, `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
    }
    const base = await q.clone.commit('Initial', { 'README.md': 'hello\n' });
    await q.clone.pushBase();
    await q.clone.pr(1, base, { 'a.txt': 'a\n' });
    // git push itself runs the receiving repository's hooks (that is the pusher's git, not Greenline): start afresh.
    await rm(marker, { force: true });
    await q.submit(1);
    await q.report(q.runOf(1), 'success');
    expect(q.pr(1).state).toBe('MERGED');
    expect(
      await readFile(marker).then(
        () => true,
        () => false,
      ),
    ).toBe(false);
  });

  test('CI commands see none of the service settings, and nothing they leave running outlives them', async () => {
    vi.stubEnv('GREENLINE_API_TOKENS', 'acme:secret-token-0123456789');
    const q = (queue = await GitQueue.create({ localCi: true }));
    await q.create();
    const pidFile = join(q.root, 'background.pid');
    const config = `required_statuses: [env]\nci:\n  env: ${JSON.stringify(`sleep 300 & echo $! > ${pidFile}; env | grep -c '^GREENLINE_API_TOKENS=' ; echo "run $GREENLINE_RUN_ID"`)}\n`;
    const base = await q.clone.commit('Initial', { '.greenline.yaml': config });
    await q.clone.pushBase();
    await q.clone.pr(1, base, { 'a.txt': 'a\n' });
    await q.submit(1);
    const runId = q.pr(1).runId as string;
    await q.until(
      () => q.pr(1).state,
      (state) => state === 'MERGED',
      'PR 1 merges',
    );
    const stream = await q.ci!.openLog(KEY.org, runId, 'env');
    let log = '';
    for await (const chunk of stream ?? []) log += String(chunk);
    expect(log).toContain(`run ${runId}`);
    expect(log).toMatch(/^0$/m);
    const pid = Number((await readFile(pidFile, 'utf8')).trim());
    await q.until(
      () => alive(pid),
      (running) => !running,
      'the background sleep ends',
    );
  });
});
