/** The load benchmark's short run: mixed traffic on a real server gives no 5xx, and no acknowledged PR is lost or doubled. */
import { expect, test } from 'vitest';
import { runLoad } from '../../bench/load.js';

test('a short mixed load: zero 5xx, every acknowledged submit stored once', async () => {
  // A count of requests per endpoint, not a duration: every endpoint is called however loaded the machine is.
  const figures = await runLoad({ seconds: 3, requestsPerEndpoint: 30, connections: 12, queues: 4, fromSource: true });
  for (const endpoint of figures.endpoints) {
    expect(endpoint.serverErrors, `${endpoint.endpoint} answered 5xx`).toBe(0);
    expect(endpoint.requests, `${endpoint.endpoint} was never called`).toBeGreaterThan(0);
  }
  expect(figures.acknowledgedSubmits).toBeGreaterThan(0);
  expect(figures.lost).toBe(0);
  expect(figures.duplicated).toBe(0);
});
