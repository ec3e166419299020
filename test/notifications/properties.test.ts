/**
 * Property: random invalid bodies to the webhook endpoints always get a 4xx with the error body and store nothing
 * (no endpoint made, none changed, no message redelivered), whatever field is wrong and however.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { expectErrorBody, makeApi, type Api } from '../api/harness.js';

let api: Api;
let id = '';
beforeAll(async () => {
  api = await makeApi();
  id = (await api.post('webhooks/create', { url: 'https://hooks.example.com/a' })).json().endpoint.id as string;
});
afterAll(async () => api.close());

const QUEUE = { repo: { host: 'github.com', owner: 'acme', name: 'widgets' }, targetBranch: 'main' };

test('invalid webhook bodies get a 4xx error body and change nothing', async () => {
  const endpoints: [string, Record<string, unknown>, string[]][] = [
    [
      'webhooks/create',
      { url: 'https://hooks.example.com/b', kind: 'webhook', eventTypes: ['pull_request.merged'], queues: [QUEUE] },
      ['url', 'kind', 'eventTypes', 'queues', 'description', 'enabled'],
    ],
    [
      'webhooks/update',
      { id, url: 'https://hooks.example.com/c', enabled: true },
      ['id', 'url', 'enabled', 'kind', 'queues'],
    ],
    ['webhooks/rotate-secret', { id }, ['id']],
    ['webhooks/delete', { id }, ['id']],
    ['webhooks/deliveries/list', { endpointId: id, take: 10 }, ['endpointId', 'take', 'status', 'before']],
    ['webhooks/deliveries/redeliver', { id: `${id}.1` }, ['id']],
  ];
  const wrong = fc.constantFrom(
    null,
    -1,
    1.5,
    '',
    'not valid at all!',
    [],
    {},
    4294967296,
    true,
    'http://10.0.0.1/',
    [{ repo: 1 }],
    ['no.such.event'],
  );
  let created = 0;
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...endpoints), fc.nat(), wrong, async ([path, valid, fields], pick, value) => {
      const field = fields[pick % fields.length] as string;
      const body = { ...valid, [field]: value };
      const response = await api.post(path, body);
      // A value that happens to be valid for that field (an empty description, enabled: true) is not a wrong one.
      if (response.statusCode === 200) {
        expect(path).not.toMatch(/delete|rotate/);
        if (path === 'webhooks/create') created++;
        return;
      }
      expect(response.statusCode).toBeGreaterThanOrEqual(400);
      expect(response.statusCode).toBeLessThan(500);
      expectErrorBody(response, response.statusCode);
    }),
    { numRuns: 300 },
  );
  // Valid values may have been taken (an empty list of event types, enabled: true): the endpoint stands, and only
  // the bodies answered 200 made endpoints.
  const after = api.engine.webhooks.list('acme');
  expect(after.map((endpoint) => endpoint.id)).toContain(id);
  expect(after).toHaveLength(1 + created);
});
