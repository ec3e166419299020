/** Health checks without a token, security headers on the pages, and no stack or internal path in any error body. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectErrorBody, makeApi, REPO, type Api } from '../api/harness.js';

let api: Api;
beforeEach(async () => {
  api = await makeApi();
});
afterEach(async () => {
  await api.close().catch(() => undefined);
});

const get = (url: string) => api.app.inject({ method: 'GET', url });

describe('health', () => {
  it('/healthz and /readyz answer without a token and reveal nothing', async () => {
    const alive = await get('/healthz');
    expect(alive.statusCode).toBe(200);
    expect(alive.json()).toEqual({ status: 'ok' });
    const ready = await get('/readyz');
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready' });
  });

  it('/readyz is 503 once the engine is stopped, while /healthz stays 200', async () => {
    api.engine.stop();
    expectErrorBody(await get('/readyz'), 503, 'unavailable');
    expect((await get('/healthz')).statusCode).toBe(200);
  });

  it('/readyz is 503 when the store is closed', async () => {
    await api.store.close();
    const body = expectErrorBody(await get('/readyz'), 503, 'unavailable');
    expect(body.message).toBe('not ready');
  });
});

describe('security headers', () => {
  it('every HTML page carries helmet headers and the content security policy', async () => {
    for (const url of ['/', '/flaky', '/charts']) {
      const page = await get(url);
      expect(page.headers['content-type']).toContain('text/html');
      expect(page.headers['x-frame-options']).toBe('SAMEORIGIN');
      expect(page.headers['x-content-type-options']).toBe('nosniff');
      expect(page.headers['strict-transport-security']).toBeDefined();
      expect(page.headers['cross-origin-opener-policy']).toBe('same-origin');
      expect(page.headers['content-security-policy']).toContain("script-src 'self'");
      expect(page.headers['x-powered-by']).toBeUndefined();
    }
  });
});

describe('error bodies', () => {
  it('an unexpected failure is a bare internal_error, without stack, cause or path', async () => {
    await api.store.close();
    const response = await api.post('getQueue', { repo: REPO, targetBranch: 'main' });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({ code: 'internal_error', reason: 'internal_error', message: 'internal error' });
  });

  it('no client error body names a source file or carries a stack', async () => {
    const answers = [
      await api.app.inject({
        method: 'POST',
        url: '/v1/getQueue',
        headers: { 'x-api-token': 'acme-token-0123456789abcdef', 'content-type': 'application/json' },
        payload: '{"repo":',
      }),
      await api.app.inject({
        method: 'POST',
        url: '/v1/getQueue',
        headers: { 'x-api-token': 'acme-token-0123456789abcdef', 'content-type': 'text/xml' },
        payload: '<a/>',
      }),
      await api.app.inject({
        method: 'POST',
        url: '/v1/getQueue',
        headers: {
          'x-api-token': 'acme-token-0123456789abcdef',
          'content-type': 'application/json',
          'content-length': '5',
        },
        payload: '{}',
      }),
      await api.post('flaky-tests/upload', {
        repo: REPO,
        commit_sha: 'abcdef1',
        branch: 'main',
        reports: [{ file: 'a.xml', xml: `${'<testsuite>'.repeat(300)}${'</testsuite>'.repeat(300)}` }],
      }),
      await api.post('getQueue', {
        repo: REPO,
        targetBranch: 'main',
        __proto__: { polluted: true },
        constructor: { prototype: {} },
      }),
      await get('/v1/getMergeQueueMetrics?repo=%ff&repoHost=%00'),
      await get('/queues/..%2f..%2fetc%2fpasswd'),
    ];
    for (const response of answers) {
      expect(response.statusCode, response.body).toBeGreaterThanOrEqual(400);
      expect(response.statusCode).toBeLessThan(500);
      expect(response.body).not.toMatch(/\/work\/|node_modules|\.ts:\d|\.js:\d|\n\s+at /);
    }
  });
});
