/**
 * What is on disk, and who can read it: the data folder is 0700 (a looser one is tightened at start, saying so);
 * the store, its lock file and the session key are 0600; a backup and its checksum are 0600. The key that signs
 * dashboard sessions is not in the store, so a backup holds nothing that forges a session; `greenline session
 * rotate-key` ends every session of the running service.
 */
import { createHmac } from 'node:crypto';
import { chmodSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { openLmdbStore } from '../../engine/store/index.js';
import { runCli, startServer, stop, withDataDir, type Running } from './process.js';

const running: Running[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => stop(server, 'SIGKILL')));
});

const mode = (file: string) => statSync(file).mode & 0o777;
const bootstrapToken = (server: Running) => /^\s+(glt_[A-Za-z0-9_-]+)$/m.exec(server.stdout())?.[1] ?? '';

async function signIn(server: Running, token: string): Promise<string> {
  const response = await fetch(`${server.url}/signin`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `token=${encodeURIComponent(token)}`,
    redirect: 'manual',
  });
  const cookie = /greenline_session=([^;]+)/.exec(response.headers.get('set-cookie') ?? '')?.[1];
  if (cookie === undefined) throw new Error(`sign-in gave no session: ${response.status}`);
  return cookie;
}

/** Whether the dashboard takes this session cookie (HEAD /events: 204 with a session, 401 without). */
async function sessionStands(server: Running, cookie: string): Promise<boolean> {
  const response = await fetch(`${server.url}/events`, {
    method: 'HEAD',
    headers: { cookie: `greenline_session=${cookie}` },
  });
  return response.status === 204;
}

/** A cookie for `tokenId` of `org` signed with `key`, as web/session.ts makes them. */
function forge(key: Buffer, tokenId: string, org: string): string {
  const payload = Buffer.from(JSON.stringify([tokenId, org, Date.now() + 3_600_000])).toString('base64url');
  return `${payload}.${createHmac('sha256', key).update(payload).digest('base64url')}`;
}

test('files are the owner’s only; a backup cannot forge a session; rotating the key ends every session', async () => {
  await withDataDir(async (dir) => {
    const data = join(dir, 'data');
    // A data folder as an earlier build (or a loose umask) left it: readable by everyone.
    mkdirSync(data);
    chmodSync(data, 0o755);
    writeFileSync(join(data, 'notes.txt'), 'left here');
    chmodSync(join(data, 'notes.txt'), 0o644);
    const server = await startServer({ GREENLINE_DATA: data, GREENLINE_PROVIDER: 'sim' });
    running.push(server);
    expect(server.stderr()).toMatch(/data was mode 0755, readable by other users; now 0700/);
    expect(mode(data)).toBe(0o700);
    for (const file of ['greenline.mdb', 'greenline.mdb-lock', 'session.key', 'notes.txt'])
      expect({ file, mode: mode(join(data, file)) }).toEqual({ file, mode: 0o600 });

    const token = bootstrapToken(server);
    const cookie = await signIn(server, token);
    expect(await sessionStands(server, cookie)).toBe(true);

    // A backup: 0600, and nothing in it signs a session.
    const backup = join(dir, 'greenline.backup');
    const backedUp = await runCli(['backup', '--to', backup, '--data', data], {});
    expect(backedUp.code, backedUp.stderr).toBe(0);
    expect(mode(backup)).toBe(0o600);
    expect(mode(`${backup}.sha256`)).toBe(0o600);
    const restoredDir = join(dir, 'restored');
    expect((await runCli(['restore', '--from', backup, '--data', restoredDir], {})).code).toBe(0);
    const copy = openLmdbStore({ dir: restoredDir });
    const { secrets, tokens } = copy.read((tx) => ({
      secrets: [...tx.scan('meta')].flatMap(({ value }) => (typeof value === 'string' ? [value] : [])),
      tokens: [...tx.scan('tokens')].map(({ value }) => value),
    }));
    await copy.close();
    expect(tokens.length).toBeGreaterThan(0);
    for (const secret of secrets) {
      for (const key of [Buffer.from(secret, 'base64url'), Buffer.from(secret, 'hex'), Buffer.from(secret)]) {
        for (const record of tokens)
          expect(await sessionStands(server, forge(key, record.id, record.org)), `forged with ${secret}`).toBe(false);
      }
    }

    // Rotation, while the service runs: the old session ends, a new sign-in works.
    const rotated = await runCli(['session', 'rotate-key', '--data', data], {});
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(mode(join(data, 'session.key'))).toBe(0o600);
    expect(await sessionStands(server, cookie)).toBe(false);
    expect(await sessionStands(server, await signIn(server, token))).toBe(true);
    expect(await stop(server)).toEqual({ code: 0, signal: null });
  });
});
