/**
 * A full disk, on a small filesystem the test makes (a 2 MiB tmpfs; it needs root and permission to mount, and is
 * skipped, saying so, where it has neither): writes are answered 507 storage_full, reads go on, nothing acknowledged
 * is lost, and once the filesystem has room again writes work with no restart.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { SimGitHost } from '../../engine/providers/sim/simGitHost.js';
import { openLmdbStore } from '../../engine/store/index.js';
import { expectErrorBody, makeApi, REPO } from '../api/harness.js';

const mountPoint = mkdtempSync(join(tmpdir(), 'greenline-disk-'));
function tryMount(): string | undefined {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', mountPoint], { stdio: 'pipe' });
    return undefined;
  } catch (error) {
    return (error as { stderr?: Buffer }).stderr?.toString().trim() || String(error);
  }
}
const cannotMount = tryMount();
if (cannotMount !== undefined) console.log(`disk-full test skipped: cannot mount a small tmpfs here (${cannotMount})`);
afterAll(() => {
  if (cannotMount === undefined) execFileSync('umount', ['-l', mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

const queue = { repo: REPO, targetBranch: 'main' };

test.skipIf(cannotMount !== undefined)(
  'a full disk: 507 storage_full, reads go on, a restart opens read-only, and writes resume once there is room',
  async () => {
    let api = await makeApi(openLmdbStore({ dir: join(mountPoint, 'data') }), { gitHost: new SimGitHost() });
    try {
      expect((await api.post('createQueue', { ...queue, requiredStatuses: ['ci'] })).statusCode).toBe(200);
      const acknowledged: number[] = [];
      let refused;
      for (let number = 1; number <= 20_000 && refused === undefined; number++) {
        const response = await api.post('submitPullRequest', { ...queue, pr: { number } });
        if (response.statusCode === 200) acknowledged.push(number);
        else refused = response;
      }
      expect(refused, 'the disk never filled').toBeDefined();
      expectErrorBody(refused!, 507, 'storage_full');
      expect((await api.post('getQueue', queue)).statusCode).toBe(200);
      for (const number of acknowledged) {
        expect((await api.post('getSubmittedPullRequest', { ...queue, pr: { number } })).statusCode).toBe(200);
      }
      // A restart on the full disk opens the store read-only, and says so.
      await api.close();
      api = await makeApi(openLmdbStore({ dir: join(mountPoint, 'data') }), { gitHost: new SimGitHost() });
      const ready = await api.app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.json()).toEqual({
        status: 'read-only',
        reason: expect.stringMatching(/the disk holding the store has \d+ bytes free/),
      });
      expect(
        (await api.post('getSubmittedPullRequest', { ...queue, pr: { number: acknowledged[0] } })).statusCode,
      ).toBe(200);
      expectErrorBody(await api.post('submitPullRequest', { ...queue, pr: { number: 40_000 } }), 507, 'storage_full');
      // Room again, without a restart.
      execFileSync('mount', ['-o', 'remount,size=64m', mountPoint]);
      expect((await api.app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({ status: 'ready' });
      const again = await api.post('submitPullRequest', { ...queue, pr: { number: 50_000 } });
      expect(again.statusCode, again.body).toBe(200);
      for (const number of acknowledged) {
        expect((await api.post('getSubmittedPullRequest', { ...queue, pr: { number } })).statusCode).toBe(200);
      }
    } finally {
      await api.close();
    }
  },
);
