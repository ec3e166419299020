/**
 * The hosted service's newer paths: GET /v1/status, the device authorization grant (RFC 8628) from initiate to a
 * token of the scope a person approved at /device, create-ci-run's 501; and every answer ending with a newline.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createToken } from '../../engine/tokens.js';
import { expectErrorBody, makeApi, queueBody, TOKENS, type Api } from './harness.js';

let api: Api;
beforeEach(async () => {
  api = await makeApi();
});
afterEach(async () => {
  await api.close();
});

const GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** A dashboard session of `token` (its cookie). */
async function signIn(token: string): Promise<string> {
  const response = await api.app.inject({
    method: 'POST',
    url: '/signin',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ token, next: '/' }).toString(),
  });
  expect(response.statusCode).toBe(303);
  return String(response.headers['set-cookie']).split(';')[0] as string;
}

/** Approves as the device page's form does: with the session's CSRF token, which every form that posts carries. */
async function approve(cookie: string, fields: Record<string, string>): Promise<LightMyRequestResponse> {
  const page = await api.app.inject({ method: 'GET', url: '/device', headers: { cookie } });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
  return api.app.inject({
    method: 'POST',
    url: '/device',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
  });
}

const initiate = (body: unknown) => api.post('device-auth/initiate', body, null);
const poll = (deviceCode: string) =>
  api.post('device-auth/tokens', { device_code: deviceCode, grant_type: GRANT }, null);

describe('GET /v1/status', () => {
  test('up, with the version and the token’s organization and scope; 401 without a token', async () => {
    const response = await api.get('status');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok', version: '0.0.0', org: 'acme', scope: 'admin' });
    expectErrorBody(await api.get('status', null), 401, 'unauthorized');
  });
});

describe('device authorization (RFC 8628)', () => {
  test('initiate, pending, approved at /device with a scope, the token once, then spent', async () => {
    const started = await initiate({ scope: 'write', client_id: 'greenline-cli' });
    expect(started.statusCode).toBe(200);
    const body = started.json() as Record<string, any>;
    expect(body).toMatchObject({
      user_code: expect.stringMatching(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/),
      expires_in: 600,
      interval: 5,
      scope: 'write',
    });
    expect(body.verification_uri).toBe('http://localhost:8080/device');
    expect(body.verification_uri_complete).toBe(`http://localhost:8080/device?user_code=${body.user_code}`);
    expect(started.headers['cache-control']).toBe('no-store');

    const pending = poll(body.device_code);
    expect((await pending).json()).toMatchObject({
      error: 'authorization_pending',
      reason: 'authorization_pending',
      code: 'bad_request',
    });
    expect((await pending).statusCode).toBe(400);

    const cookie = await signIn(TOKENS.acme);
    const page = await api.app.inject({
      method: 'GET',
      url: `/device?user_code=${body.user_code.toLowerCase()}`,
      headers: { cookie },
    });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`value="${body.user_code}"`);
    // The terminal asked for write: admin is not offered, and not granted when posted.
    expect(page.body).not.toContain('value="admin"');
    expect((await approve(cookie, { user_code: body.user_code, scope: 'admin', decision: 'approve' })).statusCode).toBe(
      400,
    );
    const approved = await approve(cookie, {
      user_code: body.user_code.replace('-', ''),
      scope: 'read',
      decision: 'approve',
    });
    expect(approved.statusCode).toBe(200);
    expect(approved.body).toContain('scope read');

    const granted = await poll(body.device_code);
    expect(granted.statusCode).toBe(200);
    const token = granted.json() as { access_token: string; token_type: string; scope: string; org: string };
    expect(token).toMatchObject({ token_type: 'Bearer', scope: 'read', org: 'acme' });
    // The token works, with the scope approved.
    expect((await api.get('status', token.access_token)).json()).toMatchObject({ org: 'acme', scope: 'read' });
    expect((await api.post('createQueue', queueBody(), token.access_token)).statusCode).toBe(403);
    expect(api.engine.findToken(token.access_token)?.source).toBe('device');
    // Handed out once.
    expect((await poll(body.device_code)).json()).toMatchObject({ error: 'invalid_grant' });
  });

  test('denied: the terminal is told so; a read session cannot grant more than read; forms and JSON alike', async () => {
    const form = await api.app.inject({
      method: 'POST',
      url: '/v1/device-auth/initiate',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'scope=admin',
    });
    expect(form.statusCode).toBe(200);
    const started = form.json() as { device_code: string; user_code: string };
    const readOnly = createToken(api.store, 'acme', new Date(api.clock.now()).toISOString(), 'read').token;
    const cookie = await signIn(readOnly);
    expect(
      (await approve(cookie, { user_code: started.user_code, scope: 'write', decision: 'approve' })).statusCode,
    ).toBe(400);
    expect((await approve(cookie, { user_code: started.user_code, decision: 'deny' })).statusCode).toBe(200);
    expect((await poll(started.device_code)).json()).toMatchObject({ error: 'access_denied' });
    // An unknown code at /device: 404, said on the page.
    expect((await approve(cookie, { user_code: 'BBBB-BBBB', decision: 'approve', scope: 'read' })).statusCode).toBe(
      404,
    );
  });

  test('bad requests: unknown grant type, unknown device code, bad scope; /device needs a session', async () => {
    expect(
      (await api.post('device-auth/tokens', { device_code: 'x', grant_type: 'password' }, null)).json(),
    ).toMatchObject({ error: 'unsupported_grant_type' });
    expect((await poll('nope')).json()).toMatchObject({ error: 'invalid_grant' });
    expectErrorBody(await initiate({ scope: 'root' }), 400);
    expect((await api.app.inject({ method: 'GET', url: '/device' })).statusCode).toBe(401);
  });

  test('polling faster than the interval answers slow_down', async () => {
    const { device_code } = (await initiate({})).json() as { device_code: string };
    expect((await poll(device_code)).json()).toMatchObject({ error: 'authorization_pending' });
    expect((await poll(device_code)).json()).toMatchObject({ error: 'slow_down' });
    // Waiting the interval (5 s, plus 5 after a slow_down) is pending again; after expires_in, expired.
    api.clock.advanceBy(10_000);
    expect((await poll(device_code)).json()).toMatchObject({ error: 'authorization_pending' });
    api.clock.advanceBy(600_000);
    expect((await poll(device_code)).json()).toMatchObject({ error: 'expired_token' });
  });
});

test('flaky-ci/create-ci-run answers 501 saying why, not 404', async () => {
  const response = await api.post('flaky-ci/create-ci-run', { repo: queueBody().repo });
  expect(response.statusCode).toBe(501);
  expect(response.json()).toMatchObject({ reason: 'not_implemented', message: expect.stringMatching(/upload/) });
});

test('every JSON answer ends with a newline: a body, an empty body, an error, health, an unknown path', async () => {
  const answers = [
    await api.post('createQueue', queueBody()),
    await api.post('getQueue', queueBody()),
    await api.post('getQueue', queueBody({}, 'nope')),
    await api.app.inject({ method: 'GET', url: '/healthz' }),
    await api.app.inject({ method: 'GET', url: '/nowhere' }),
    await api.get('status'),
  ];
  for (const answer of answers) {
    expect(answer.body.endsWith('\n'), answer.body).toBe(true);
    expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.body));
  }
  expect(answers[0]?.body).toBe('{}\n');
});
