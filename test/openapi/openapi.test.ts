/** GET /v1/openapi.json: generated from the zod schemas, every endpoint in it, and the response check can fail. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { POST_ENDPOINTS } from '../../api/endpoints.js';
import { makeApi, queueBody, type Api } from '../api/harness.js';
import { makeChecker } from './conformance.js';
import Fastify from 'fastify';
import { attachRecorder, takeFailures, tally } from './recorder.js';

let api: Api;
let document: Record<string, any>;
beforeAll(async () => {
  api = await makeApi();
  const response = await api.app.inject({ method: 'GET', url: '/v1/openapi.json' });
  expect(response.statusCode).toBe(200);
  expect(response.headers['content-type']).toContain('application/json');
  document = response.json();
});
afterAll(async () => {
  await api.close();
});

describe('the document', () => {
  test('is OpenAPI 3.1, needs no token, and names both ways of sending one', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers).toEqual([{ url: 'http://localhost:8080/v1' }]);
    expect(Object.values(document.components.securitySchemes)).toEqual([
      { type: 'apiKey', in: 'header', name: 'x-api-token' },
      expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    ]);
  });

  test('has every route the server registered (read from Fastify), and the server routes every operation it has', () => {
    // Every route but the dashboard's HTML pages (web/): those a session signs in to, and the sign-in's own.
    const dashboard = new Set(['/signin', '/signout', '/events', '/assets/:name', '/favicon.svg', '/favicon.ico']);
    const routes = api.app.routeTable.routes.filter(
      (route) => route.method !== 'HEAD' && route.access() !== 'session' && !dashboard.has(route.url),
    );
    expect(routes.length).toBeGreaterThan(POST_ENDPOINTS.length);
    for (const { method, url } of routes) {
      const path = url.startsWith('/v1/') ? url.slice(3).replace(/:(\w+)/g, '{$1}') : url.replace(/:(\w+)/g, '{$1}');
      expect(
        document.paths[path]?.[method.toLowerCase()],
        `${method} ${url} is routed and not in the document`,
      ).toBeDefined();
    }
    for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, unknown>>)) {
      const root = Array.isArray(item.servers);
      for (const method of Object.keys(item).filter((key) => key !== 'servers')) {
        expect(
          api.app.hasRoute({ method: method.toUpperCase() as 'GET', url: root ? path : `/v1${path}` }),
          `${method} ${path}`,
        ).toBe(true);
      }
    }
    // The newer paths of the hosted service (issue 34): the device sign-in needs no token.
    for (const path of ['/status', '/device-auth/initiate', '/device-auth/tokens', '/flaky-ci/create-ci-run'])
      expect(Object.keys(document.paths)).toContain(path);
    expect(document.paths['/device-auth/tokens'].post.security).toEqual([]);
    // The hosted service's endpoints Greenline lacked, and ours, marked.
    for (const path of [
      '/listPullRequests',
      '/flaky-tests/get-test-details',
      '/flaky-tests/link-ticket-to-test-case',
    ]) {
      expect(document.paths[path].post['x-greenline-only']).toBeUndefined();
    }
    expect(document.paths['/setCommitStatus'].post['x-greenline-only']).toBe(true);
  });

  test('every schema in it compiles in a strict JSON Schema 2020-12 validator', () => {
    const { ajv } = makeChecker(document);
    let schemas = 0;
    for (const operations of Object.values(document.paths as Record<string, Record<string, any>>)) {
      // A path item may name its own servers (the health checks, outside /v1): the rest are its operations.
      for (const [method, operation] of Object.entries(operations)) {
        if (method === 'servers') continue;
        const bodies = [operation.requestBody, ...Object.values(operation.responses)].flatMap((part: any) =>
          part?.content === undefined ? [] : Object.values(part.content).map((media: any) => media.schema),
        );
        for (const schema of bodies) {
          ajv.compile(schema);
          schemas += 1;
        }
      }
    }
    expect(schemas).toBeGreaterThan(3 * POST_ENDPOINTS.length);
  });

  test('request schemas say what the service accepts: enums in any case, PR numbers as digits, priority null', () => {
    const { ajv } = makeChecker(document);
    const request = (path: string) =>
      ajv.compile(document.paths[path].post.requestBody.content['application/json'].schema);
    const update = request('/updateQueue');
    expect(update(queueBody({ state: 'PAUSED', mergeMethod: 'Squash' }))).toBe(true);
    expect(update(queueBody({ state: 'sleeping' }))).toBe(false);
    expect(update(queueBody({ concurrency: 0 }))).toBe(false);
    const submit = request('/submitPullRequest');
    expect(submit(queueBody({ pr: { number: '42' }, priority: null }))).toBe(true);
    expect(submit(queueBody({ pr: { number: 'forty-two' } }))).toBe(false);
    expect(submit(queueBody({}))).toBe(false);
  });
});

describe('the response check', () => {
  test('accepts what the server answers and refuses a body that strays from the document', async () => {
    expect((await api.post('createQueue', queueBody())).statusCode).toBe(200);
    const response = await api.post('getQueue', queueBody());
    const { check } = makeChecker(document);
    const ok = check('POST', '/getQueue', 200, 'application/json', response.body);
    expect(ok).toEqual({ operation: 'POST /getQueue 200', problems: [] });

    const queue = response.json();
    const stray = (body: unknown) =>
      check('POST', '/getQueue', 200, 'application/json', JSON.stringify(body))!.problems;
    const { mergeMethod: _dropped, ...missing } = queue;
    expect(stray(missing).join()).toContain('mergeMethod');
    expect(stray({ ...queue, surprise: 1 }).join()).toContain('surprise');
    expect(stray({ ...queue, state: 'RUNNING' }).join()).toContain('/state');
    expect(stray({ ...queue, concurrency: '1' }).join()).toContain('/concurrency');
    // Errors have their own shape.
    expect(
      check('POST', '/getQueue', 404, 'application/json', JSON.stringify({ code: 'not_found', message: 'x' }))!
        .problems,
    ).toEqual([]);
    expect(check('POST', '/getQueue', 404, 'application/json', JSON.stringify({ error: 'x' }))!.problems).not.toEqual(
      [],
    );
    // A type the document does not name for that response is refused.
    expect(check('POST', '/getQueue', 200, 'text/plain', 'hello')!.problems).not.toEqual([]);
    expect(check('GET', '/getMergeQueueMetrics', 200, 'text/plain', '# HELP x\n')!.problems).toEqual([]);
  });

  test('the harness checked the responses of this file as they were sent', () => {
    expect(tally.get('POST /createQueue 200')).toBeGreaterThanOrEqual(1);
    expect(tally.get('POST /getQueue 200')).toBeGreaterThanOrEqual(1);
  });

  test('a response that strays is recorded as a failure (the setup fails the test that sent it)', async () => {
    const liar = Fastify();
    liar.post('/v1/getQueue', async () => ({ state: 'RUNNING' }));
    attachRecorder(liar);
    await liar.inject({ method: 'POST', url: '/v1/getQueue', payload: {} });
    await liar.close();
    const failures = takeFailures();
    expect(failures).toHaveLength(1);
    expect(failures[0]).toContain('POST /getQueue 200');
    expect(failures[0]).toContain("must have required property 'branch'");
  });
});
