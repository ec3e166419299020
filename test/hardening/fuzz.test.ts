/**
 * The fuzzer's short version (bench/fuzzCore.ts; `npm run bench:fuzz` runs a large count): bodies generated from
 * every endpoint's schema and spoiled, raw malformed bodies, hostile JUnit. No 5xx, every 4xx an error body, and no
 * write committed by a rejected request.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { fuzz, fuzzServer, type FuzzServer } from '../../bench/fuzzCore.js';
import { hostileJunit } from '../../bench/junitFuzz.js';

let server: FuzzServer;
beforeAll(async () => {
  server = await fuzzServer();
});
afterAll(async () => {
  await server.close();
});

test('generated and hostile requests on every endpoint: no 5xx, errors are error bodies, rejections write nothing', async () => {
  expect(server.paths.length).toBeGreaterThanOrEqual(20);
  const report = await fuzz(server, 300, Number(process.env.FUZZ_SEED ?? 19), hostileJunit);
  console.log(`fuzz: ${report.requests} requests, by status ${JSON.stringify(report.byStatus)}`);
  expect(report.serverErrors).toEqual([]);
  expect(report.writesOnRejection).toEqual([]);
  // The workload reaches both sides: accepted requests and refused ones.
  const accepted = Object.entries(report.byStatus)
    .filter(([status]) => Number(status) < 300)
    .reduce((sum, [, n]) => sum + n, 0);
  expect(accepted).toBeGreaterThan(10);
  expect(report.byStatus[400] ?? 0).toBeGreaterThan(50);
});
