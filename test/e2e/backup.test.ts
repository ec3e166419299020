/**
 * `greenline backup` of a running service under load, and `greenline restore` into an empty data folder: every PR
 * acknowledged before the backup began is in the restored store.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { call, runCli, startServer, stop, withDataDir, type Running } from './process.js';

const running: Running[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => stop(server, 'SIGKILL')));
});

const QUEUE = { repo: { host: 'github.com', owner: 'acme', name: 'widgets' }, targetBranch: 'main' };
const token = (server: Running) => /^\s+(glt_[A-Za-z0-9_-]+)$/m.exec(server.stdout())?.[1] ?? '';

test('a backup taken under load restores every PR acknowledged before it began', async () => {
  await withDataDir(async (dir) => {
    const data = join(dir, 'data');
    const server = await startServer({
      GREENLINE_DATA: data,
      GREENLINE_PROVIDER: 'sim',
      GREENLINE_RATE_LIMIT: '1000000',
    });
    running.push(server);
    const key = token(server);
    expect((await call(server, '/v1/createQueue', key, { ...QUEUE, concurrency: 4 })).status).toBe(200);

    // Four clients submit PRs without pause; each acknowledged number is noted with the moment it was acknowledged.
    const acknowledged: { number: number; at: number }[] = [];
    let next = 1;
    let loading = true;
    const client = async () => {
      while (loading) {
        const number = next++;
        const response = await call(server, '/v1/submitPullRequest', key, { ...QUEUE, pr: { number } });
        if (response.status === 200) acknowledged.push({ number, at: performance.now() });
      }
    };
    const clients = Array.from({ length: 4 }, client);
    while (acknowledged.length < 50) await new Promise((resolve) => setTimeout(resolve, 20));

    const began = performance.now();
    const backup = await runCli(['backup', '--to', join(dir, 'greenline.backup'), '--data', data], {});
    const during = acknowledged.length;
    loading = false;
    await Promise.all(clients);
    expect(backup.code, backup.stderr).toBe(0);
    expect(acknowledged.length).toBeGreaterThan(during - 1);
    const before = acknowledged.filter((ack) => ack.at < began).map((ack) => ack.number);
    expect(before.length).toBeGreaterThanOrEqual(50);

    // Restoring into a folder that holds a store is refused; into an empty one it works.
    const refused = await runCli(['restore', '--from', join(dir, 'greenline.backup'), '--data', data], {});
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('already holds a store');
    const restoredDir = join(dir, 'restored');
    const restore = await runCli(['restore', '--from', join(dir, 'greenline.backup'), '--data', restoredDir], {});
    expect(restore.code, restore.stderr).toBe(0);
    expect(existsSync(join(restoredDir, 'greenline.mdb'))).toBe(true);

    const restored = await startServer({
      GREENLINE_DATA: restoredDir,
      GREENLINE_PROVIDER: 'sim',
      GREENLINE_RATE_LIMIT: '1000000',
    });
    running.push(restored);
    const missing: number[] = [];
    for (const number of before) {
      const response = await call(restored, '/v1/getSubmittedPullRequest', key, { ...QUEUE, pr: { number } });
      if (response.status !== 200) missing.push(number);
    }
    expect(missing).toEqual([]);
    expect(await stop(restored)).toEqual({ code: 0, signal: null });
    expect(await stop(server)).toEqual({ code: 0, signal: null });
  });
}, 120_000); // two servers, a backup and two restores (each checks its file in a child process), on a shared machine

test('backup and restore say what is wrong', async () => {
  await withDataDir(async (dir) => {
    const noStore = await runCli(['backup', '--to', join(dir, 'b'), '--data', join(dir, 'nothing')], {});
    expect(noStore.code).toBe(1);
    expect(noStore.stderr).toContain('no store in');
    const noTo = await runCli(['backup', '--data', dir], {});
    expect(noTo.code).toBe(2);
    expect(noTo.stderr).toContain('backup needs --to FILE');
    const notBackup = join(dir, 'junk');
    await import('node:fs/promises').then((fs) => fs.writeFile(notBackup, 'not a store'));
    const bad = await runCli(['restore', '--from', notBackup, '--data', join(dir, 'r')], {});
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('is not a backup of a Greenline store');
    expect(existsSync(join(dir, 'r', 'greenline.mdb'))).toBe(false);
  });
});
