/**
 * Device sign-ins (RFC 8628) are kept in the store (engine/deviceCodes.ts): a restart between `device-auth/initiate`
 * and the person's approval loses nothing, the device code and the token's text are never stored, and a sign-in
 * expires in the store as it did in memory. On LMDB, with the real app on each side of the restart.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { openLmdbStore } from '../../engine/store/index.js';
import { makeApi, TOKENS, type Api } from './harness.js';

const GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
let dir: string;
let api: Api | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'greenline-device-'));
});
afterEach(async () => {
  await api?.close();
  api = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function start(): Promise<Api> {
  api = await makeApi(openLmdbStore({ dir, noSync: true }));
  return api;
}

async function restart(): Promise<Api> {
  await api?.close();
  return start();
}

async function approveAt(app: Api, userCode: string, scope: string): Promise<number> {
  const signin = await app.app.inject({
    method: 'POST',
    url: '/signin',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ token: TOKENS.acme, next: '/' }).toString(),
  });
  const cookie = String(signin.headers['set-cookie']).split(';')[0] as string;
  // The dashboard's forms carry the session's CSRF token (web/layout.ts); a post without it is refused.
  const page = await app.app.inject({ method: 'GET', url: '/device', headers: { cookie } });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
  const answer = await app.app.inject({
    method: 'POST',
    url: '/device',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ _csrf: csrf, user_code: userCode, scope, decision: 'approve' }).toString(),
  });
  return answer.statusCode;
}

const poll = (app: Api, deviceCode: string) =>
  app.post('device-auth/tokens', { device_code: deviceCode, grant_type: GRANT }, null);

test('a restart between initiate and approval, and between approval and the poll, loses nothing', async () => {
  const first = await start();
  const started = (await first.post('device-auth/initiate', { scope: 'write' }, null)).json() as {
    device_code: string;
    user_code: string;
  };
  expect((await poll(first, started.device_code)).json()).toMatchObject({ error: 'authorization_pending' });

  // What is stored names neither the device code nor (later) the token.
  const stored = JSON.stringify(first.store.read((tx) => [...tx.scan('deviceCodes'), ...tx.scan('deviceCodeHashes')]));
  expect(stored).toContain(started.user_code.replace('-', ''));
  expect(stored).not.toContain(started.device_code);

  const second = await restart();
  expect(await approveAt(second, started.user_code, 'read')).toBe(200);
  const afterApproval = JSON.stringify(second.store.read((tx) => [...tx.scan('deviceCodes')]));

  const third = await restart();
  const granted = await poll(third, started.device_code);
  expect(granted.statusCode).toBe(200);
  const token = granted.json() as { access_token: string; scope: string; org: string };
  expect(token).toMatchObject({ scope: 'read', org: 'acme' });
  expect(afterApproval).not.toContain(token.access_token);
  expect((await third.get('status', token.access_token)).json()).toMatchObject({ org: 'acme', scope: 'read' });
  // Spent: once, and nothing of it is left in the store.
  expect((await poll(third, started.device_code)).json()).toMatchObject({ error: 'invalid_grant' });
  expect(third.store.read((tx) => [tx.count('deviceCodes'), tx.count('deviceCodeHashes')])).toEqual([0, 0]);
});

test('a sign-in expires across a restart, and expired ones are dropped from the store', async () => {
  const first = await start();
  const started = (await first.post('device-auth/initiate', {}, null)).json() as {
    device_code: string;
    user_code: string;
    expires_in: number;
  };
  const second = await restart();
  second.clock.advanceBy(started.expires_in * 1000);
  expect(await approveAt(second, started.user_code, 'read')).toBe(404);
  expect((await poll(second, started.device_code)).json()).toMatchObject({ error: 'expired_token' });
  // Another sign-in sweeps what expired.
  await second.post('device-auth/initiate', {}, null);
  expect(second.store.read((tx) => tx.count('deviceCodes'))).toBe(1);
});
