/** The flaky-test endpoints' calls over HTTP (Fastify inject), for the HTTP tests of the flaky-test service. */
import { testId } from '../../engine/flaky/index.js';
import type { Api } from '../api/harness.js';
import { DAY, listBody, REPO, uploadBody, type CaseSpec } from './helpers.js';

export const NOW = Date.parse('2026-11-22T12:00:00.000Z');
export const iso = (ms: number) => new Date(ms).toISOString();
export const idOf = (name: string, extra: Partial<{ file: string; variant: string }> = {}) =>
  testId(REPO, { file: extra.file ?? '', classname: 'Suite', parent: 'suite', name, variant: extra.variant ?? '' });
export const sha = (n: number) => n.toString(16).padStart(40, '0');

/** The calls, on the API `current()` answers (each test makes its own). */
export function flakyHttp(current: () => Api) {
  async function post(path: string, body: unknown, token?: string) {
    const response = await current().post(path, body, token);
    return { status: response.statusCode, body: response.json() as Record<string, any> };
  }
  const upload = (cases: CaseSpec[], extra: Record<string, unknown> = {}, token?: string) =>
    post('flaky-tests/upload', uploadBody(cases, extra), token);
  const failing = (extra: Record<string, unknown> = {}, size = 100, token = '', auth?: string) =>
    post(
      'flaky-tests/list-failing-tests',
      listBody({ start_time: iso(NOW - 6 * DAY), end_time: iso(NOW + DAY), ...extra }, size, token),
      auth,
    );
  const unhealthy = (status: string, size = 100, token = '', auth?: string, extra: Record<string, unknown> = {}) =>
    post('flaky-tests/list-unhealthy-tests', listBody({ status, ...extra }, size, token), auth);
  const quarantined = (size = 100, token = '', auth?: string) =>
    post('flaky-tests/list-quarantined-tests', listBody({}, size, token), auth);
  /** How many entries the store holds in its flaky-test collections. */
  function flakyStored(): number {
    const entries = current().store.stats().entries;
    return Object.entries(entries)
      .filter(([name]) => name.startsWith('flaky'))
      .reduce((sum, [, count]) => sum + count, 0);
  }
  return { post, upload, failing, unhealthy, quarantined, flakyStored };
}
