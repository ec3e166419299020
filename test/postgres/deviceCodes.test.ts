/**
 * Device sign-ins on one PostgreSQL store shared by two `greenline serve` processes (engine/deviceCodes.ts): a
 * terminal that started its sign-in on one process is approved in the dashboard of the other and receives its token
 * from either; the token is handed out once, whichever process the terminal asks.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { type Running, startServer, stop } from '../e2e/process.js';
import { startPostgres, type PgCluster } from './cluster.js';

const TOKEN = 'acme-device-token-0123456789abcdef';
const GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

const started = await startPostgres();
const cluster: PgCluster | undefined = 'unavailable' in started ? undefined : started;
if (cluster === undefined)
  console.warn(`SKIPPED: PostgreSQL device sign-in tests: ${(started as { unavailable: string }).unavailable}`);
afterAll(async () => cluster?.stop());

async function post(
  server: Running,
  path: string,
  body: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${server.url}/v1/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Signs in to `server`'s dashboard and approves `userCode` with `scope`; the answer's status. */
async function approve(server: Running, userCode: string, scope: string): Promise<number> {
  const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
  const headers = { 'content-type': 'application/x-www-form-urlencoded' };
  const signin = await fetch(`${server.url}/signin`, {
    method: 'POST',
    headers,
    body: form({ token: TOKEN, next: '/' }),
    redirect: 'manual',
  });
  const cookie = (signin.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  // The dashboard's forms carry the session's CSRF token (web/layout.ts); a post without it is refused.
  const page = await (await fetch(`${server.url}/device`, { headers: { cookie } })).text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
  const answer = await fetch(`${server.url}/device`, {
    method: 'POST',
    headers: { ...headers, cookie },
    body: form({ _csrf: csrf, user_code: userCode, scope, decision: 'approve' }),
  });
  return answer.status;
}

describe.skipIf(cluster === undefined)('device sign-ins on one PostgreSQL store, two processes', () => {
  test('initiated on one process, approved on the other, the token from either, once', async () => {
    const url = await (cluster as PgCluster).createDatabase();
    const dirs = [
      await mkdtemp(join(tmpdir(), 'greenline-device-a-')),
      await mkdtemp(join(tmpdir(), 'greenline-device-b-')),
    ];
    const servers: Running[] = [];
    try {
      for (const dir of dirs)
        servers.push(
          await startServer({
            GREENLINE_DATA: dir,
            GREENLINE_STORE: url,
            GREENLINE_PROVIDER: 'sim',
            GREENLINE_API_TOKENS: `acme:${TOKEN}`,
          }),
        );
      const [a, b] = servers as [Running, Running];
      const begun = await post(a, 'device-auth/initiate', { scope: 'write' });
      expect(begun.status).toBe(200);
      const { device_code, user_code } = begun.body as { device_code: string; user_code: string };
      // The other process knows the sign-in: pending there too.
      expect((await post(b, 'device-auth/tokens', { device_code, grant_type: GRANT })).body).toMatchObject({
        error: 'authorization_pending',
      });
      expect(await approve(b, user_code, 'write')).toBe(200);
      // Both processes are asked at once: one hands out the token, the other finds the code spent.
      const answers = await Promise.all(
        [a, b].map((server) => post(server, 'device-auth/tokens', { device_code, grant_type: GRANT })),
      );
      const granted = answers.filter((answer) => answer.status === 200);
      expect(granted).toHaveLength(1);
      expect(answers.filter((answer) => answer.status !== 200).map((answer) => answer.body.error)).toEqual([
        'invalid_grant',
      ]);
      const token = granted[0]?.body.access_token as string;
      for (const server of servers) {
        const status = await fetch(`${server.url}/v1/status`, { headers: { authorization: `Bearer ${token}` } });
        expect(await status.json()).toMatchObject({ org: 'acme', scope: 'write' });
      }
    } finally {
      for (const server of servers) await stop(server);
      for (const dir of dirs) await rm(dir, { recursive: true, force: true });
      await (cluster as PgCluster).dropDatabase(url);
    }
  });
});
