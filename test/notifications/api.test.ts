/**
 * The outgoing-webhook endpoints of the REST API (/v1/webhooks/…): admin scope, URLs checked against SSRF, secrets
 * answered once and rotated, deliveries listed with their responses and redelivered. Every answer is checked against
 * the OpenAPI document by the test setup.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { createMemoryStore } from '../../engine/store/index.js';
import { createToken } from '../../engine/tokens.js';
import { expectErrorBody, makeApi, queueBody, type Api } from '../api/harness.js';
import { Receiver } from './receiver.js';

let api: Api | undefined;
const receivers: Receiver[] = [];
afterEach(async () => {
  await api?.close();
  api = undefined;
  for (const receiver of receivers.splice(0)) await receiver.down();
});

async function receiverUp(): Promise<Receiver> {
  const receiver = new Receiver();
  await receiver.up();
  receivers.push(receiver);
  return receiver;
}

interface Created {
  endpoint: { id: string; url: string; signingSecrets: number; enabled: boolean };
  secret: string;
}

describe('webhooks/create refuses what could reach inside the service’s network', () => {
  test.each([
    ['http://127.0.0.1:8080/hook', /loopback/],
    ['http://[::1]/hook', /loopback/],
    ['http://10.0.0.7/hook', /private/],
    ['http://169.254.169.254/latest/meta-data', /linkLocal/],
    ['http://[::ffff:192.168.1.1]/', /private/],
    ['http://0.0.0.0/', /unspecified/],
    ['http://localhost:9000/', /local name/],
    ['http://metadata/', /local name/],
    ['ftp://example.com/hook', /scheme ftp/],
    ['file:///etc/passwd', /scheme file/],
    ['https://user:pass@example.com/hook', /credentials/],
    ['not a url', /not a URL/],
  ])('%s', async (url, why) => {
    api = await makeApi();
    const body = expectErrorBody(await api.post('webhooks/create', { url }), 400);
    expect((body as { reason?: string }).reason).toBe('invalid_webhook_url');
    expect(body.message).toMatch(why);
    expect(api.engine.webhooks.list('acme')).toEqual([]);
  });

  test('a public https URL is taken, and its secret answered once', async () => {
    api = await makeApi();
    const response = await api.post('webhooks/create', {
      url: 'https://hooks.example.com/greenline',
      eventTypes: ['pull_request.merged'],
    });
    expect(response.statusCode).toBe(200);
    const created = response.json() as Created;
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const listed = (await api.post('webhooks/list', {})).json() as { endpoints: unknown[] };
    expect(listed.endpoints).toEqual([
      expect.objectContaining({ id: created.endpoint.id, eventTypes: ['pull_request.merged'], signingSecrets: 1 }),
    ]);
    expect(JSON.stringify(listed)).not.toContain(created.secret);
  });

  test('read and write tokens may not touch webhooks (403); bad ids are 400; unknown ones 404', async () => {
    api = await makeApi();
    const now = new Date(api.clock.now()).toISOString();
    for (const scope of ['read', 'write'] as const) {
      const { token } = createToken(api.store, 'acme', now, scope);
      expectErrorBody(await api.post('webhooks/list', {}, token), 403);
      expectErrorBody(await api.post('webhooks/create', { url: 'https://hooks.example.com/x' }, token), 403);
    }
    expectErrorBody(await api.post('webhooks/delete', { id: 'nope' }), 400);
    const missing = expectErrorBody(await api.post('webhooks/delete', { id: 'whe_0123456789abcdef' }), 404);
    expect((missing as { reason?: string }).reason).toBe('webhook_endpoint_not_found');
    const noDelivery = expectErrorBody(
      await api.post('webhooks/deliveries/redeliver', { id: 'whe_0123456789abcdef.4' }),
      404,
    );
    expect((noDelivery as { reason?: string }).reason).toBe('webhook_delivery_not_found');
  });
});

describe('endpoints and deliveries, with private addresses allowed (tests)', () => {
  test('deliveries are listed with status, excerpt and duration; redelivered; secrets rotate; delete removes all', async () => {
    api = await makeApi(createMemoryStore(), { webhooks: { allowPrivate: true } });
    const receiver = await receiverUp();
    const created = (
      await api.post('webhooks/create', { url: receiver.url, description: 'CI room' })
    ).json() as Created;
    receiver.secret = created.secret;
    const id = created.endpoint.id;
    expect((await api.post('createQueue', queueBody())).statusCode).toBe(200);
    expect((await api.post('submitPullRequest', queueBody({ pr: { number: 7 } }))).statusCode).toBe(200);
    await api.engine.settle();
    // The simulated host finds it ready at once: it is tested.
    expect(receiver.events.map((event) => event.type)).toEqual(['pull_request.submitted', 'pull_request.testing']);

    const list = (await api.post('webhooks/deliveries/list', { endpointId: id })).json() as {
      deliveries: {
        id: string;
        webhookId: string;
        status: string;
        pr: number;
        responses: { status: number; excerpt: string; durationMs: number }[];
      }[];
    };
    expect(list.deliveries).toHaveLength(2);
    const delivery = list.deliveries.at(-1);
    expect(delivery).toMatchObject({
      status: 'delivered',
      pr: 7,
      webhookId: receiver.events[0]?.id,
      responses: [{ status: 200, excerpt: 'ok' }],
    });
    expect(delivery?.responses[0]?.durationMs).toBeGreaterThanOrEqual(0);

    // Rotated: the new secret verifies (both sign for a day); the receiver switches to it.
    const rotated = (await api.post('webhooks/rotate-secret', { id })).json() as Created;
    expect(rotated.secret).not.toBe(created.secret);
    expect(rotated.endpoint.signingSecrets).toBe(2);
    receiver.secret = rotated.secret;
    const again = await api.post('webhooks/deliveries/redeliver', { id: delivery?.id });
    expect(again.statusCode).toBe(200);
    await api.engine.settle();
    // The same webhook-id: the receiver took it twice and keeps it once.
    expect(receiver.arrivals.filter((arrival) => arrival.verified)).toHaveLength(3);
    expect(receiver.events).toHaveLength(2);

    const disabled = (
      await api.post('webhooks/update', { id, enabled: false, queues: [queueBody()] })
    ).json() as Created;
    expect(disabled.endpoint.enabled).toBe(false);
    expect((await api.post('cancelPullRequest', queueBody({ pr: { number: 7 } }))).statusCode).toBe(200);
    await api.engine.settle();
    expect(receiver.arrivals).toHaveLength(3);

    expect((await api.post('webhooks/delete', { id })).statusCode).toBe(200);
    expect(((await api.post('webhooks/list', {})).json() as { endpoints: unknown[] }).endpoints).toEqual([]);
    expectErrorBody(await api.post('webhooks/deliveries/list', { endpointId: id }), 404);
    expect(api.store.read((tx) => tx.count('webhookMessages') + tx.count('webhookPending'))).toBe(0);
  });
});
