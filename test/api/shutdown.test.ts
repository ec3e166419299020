import { expect, test } from 'vitest';
import { expectErrorBody, makeApi } from './harness.js';

test('while the service closes, a request gets 503 in the one error shape and the connection closes', async () => {
  const api = await makeApi();
  const closing = api.app.close();
  const response = await api.get('getMergeQueueMetrics');
  expectErrorBody(response, 503, 'unavailable');
  expect(response.headers.connection).toBe('close');
  await closing;
  await api.store.close();
});
