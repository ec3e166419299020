/**
 * The dashboard's webhook pages: admin scope (a read token's session is refused, 403), forms posted from another
 * origin refused (403), a secret shown once, deliveries listed with their answers and redelivered.
 */
import { afterEach, beforeEach, expect, test } from 'vitest';
import { createMemoryStore } from '../../engine/store/index.js';
import { createToken } from '../../engine/tokens.js';
import { makeApi, queueBody, TOKENS, type Api } from '../api/harness.js';
import { Receiver } from './receiver.js';

let api: Api;
const receiver = new Receiver();
beforeEach(async () => {
  api = await makeApi(createMemoryStore(), { webhooks: { allowPrivate: true } });
  await receiver.up();
});
afterEach(async () => {
  await api.close();
  await receiver.down();
});

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

async function signIn(token: string): Promise<string> {
  const response = await api.app.inject({
    method: 'POST',
    url: '/signin',
    headers: FORM,
    payload: `token=${encodeURIComponent(token)}&next=%2F`,
  });
  expect(response.statusCode).toBe(303);
  return String(response.headers['set-cookie']).split(';')[0] ?? '';
}
const get = (url: string, cookie: string) => api.app.inject({ method: 'GET', url, headers: { cookie } });
/** The session's CSRF token, as every dashboard form carries it (web/layout.ts). */
const csrfOf = async (cookie: string) =>
  /name="_csrf" value="([^"]+)"/.exec(
    (await api.app.inject({ method: 'GET', url: '/', headers: { cookie } })).body,
  )?.[1] ?? '';
const post = async (url: string, payload: string, cookie: string, extra: Record<string, string> = {}) =>
  api.app.inject({
    method: 'POST',
    url,
    headers: { ...FORM, cookie, ...extra },
    payload: `_csrf=${await csrfOf(cookie)}${payload === '' ? '' : `&${payload}`}`,
  });

test('an admin adds an endpoint, sees its secret once, its deliveries, redelivers and deletes it', async () => {
  const cookie = await signIn(TOKENS.acme);
  expect((await get('/webhooks', cookie)).body).toContain('No endpoint yet');
  expect((await api.post('createQueue', queueBody())).statusCode).toBe(200);
  const queueId = api.engine.listQueues('acme')[0]?.id ?? '';

  const refused = await post('/webhooks', `url=${encodeURIComponent('ftp://example.com/x')}`, cookie);
  expect(refused.statusCode).toBe(400);
  expect(refused.body).toContain('the scheme ftp is not http or https');

  const created = await post(
    '/webhooks',
    new URLSearchParams({
      url: receiver.url,
      kind: 'webhook',
      description: 'Team room',
      eventTypes: 'pull_request.submitted',
      queues: queueId,
    }).toString(),
    cookie,
  );
  expect(created.statusCode).toBe(200);
  const secret = /whsec_[A-Za-z0-9+/=]+/.exec(created.body)?.[0];
  expect(secret).toBeDefined();
  receiver.secret = secret ?? '';
  const listed = await get('/webhooks', cookie);
  expect(listed.body).toContain('Team room');
  expect(listed.body).not.toContain(secret);

  expect((await api.post('submitPullRequest', queueBody({ pr: { number: 4 } }))).statusCode).toBe(200);
  await api.engine.settle();
  expect(receiver.events.map((event) => event.type)).toEqual(['pull_request.submitted']);
  const endpointId = api.engine.webhooks.list('acme')[0]?.id ?? '';
  const deliveries = await get(`/webhooks/${endpointId}`, cookie);
  expect(deliveries.statusCode).toBe(200);
  expect(deliveries.body).toContain('pull_request.submitted');
  expect(deliveries.body).toMatch(/<td>200<\/td><td class="wrap"><code>ok<\/code><\/td><td>\d+ ms<\/td>/);

  const redeliver = await post(`/webhooks/deliveries/${endpointId}.1/redeliver`, '', cookie);
  expect(redeliver.statusCode).toBe(303);
  expect(redeliver.headers.location).toBe(`/webhooks/${endpointId}`);
  await api.engine.settle();
  expect(receiver.arrivals).toHaveLength(2);
  expect((await get(`/webhooks/${endpointId}`, cookie)).body).toContain('200 (redelivered)');

  const rotated = await post(`/webhooks/${endpointId}/rotate`, '', cookie);
  expect(rotated.body).toMatch(/whsec_/);
  expect(rotated.body).not.toContain(secret);
  expect((await post(`/webhooks/${endpointId}/delete`, '', cookie)).statusCode).toBe(400);
  expect((await post(`/webhooks/${endpointId}/delete`, 'confirm=yes', cookie)).statusCode).toBe(303);
  expect(api.engine.webhooks.list('acme')).toEqual([]);
  expect((await get(`/webhooks/${endpointId}`, cookie)).statusCode).toBe(404);
});

test('a read token sees no webhook page or link and cannot post; a post from another origin is refused', async () => {
  const { token } = createToken(api.store, 'acme', new Date(api.clock.now()).toISOString(), 'read');
  const reader = await signIn(token);
  expect((await get('/webhooks', reader)).statusCode).toBe(403);
  expect((await get('/', reader)).body).not.toContain('href="/webhooks"');
  expect((await post('/webhooks', `url=${encodeURIComponent(receiver.url)}`, reader)).statusCode).toBe(403);
  const admin = await signIn(TOKENS.acme);
  // The navigation links the page for those who may use it.
  expect((await get('/', admin)).body).toContain('href="/webhooks"');
  const forged = await post('/webhooks', `url=${encodeURIComponent(receiver.url)}`, admin, {
    origin: 'https://evil.example',
  });
  expect(forged.statusCode).toBe(403);
  expect(api.engine.webhooks.list('acme')).toEqual([]);
});
