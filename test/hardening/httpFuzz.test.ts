/**
 * The HTTP-edge fuzzers' short version (bench/httpFuzz.ts; `npm run bench:fuzz` runs a large count): generated
 * paths and request lines, then generated headers, over raw sockets. No protected handler is entered by a request
 * without a valid token, nothing answers 5xx, every request gets an answer; and the watch is live (requests with
 * the token do enter handlers), so the zero means something.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  carriesValidToken,
  fuzzHttp,
  headerRequests,
  HTTP_TOKEN,
  type HttpFuzzServer,
  httpFuzzServer,
  pathRequests,
} from '../../bench/httpFuzz.js';

let server: HttpFuzzServer;
beforeAll(async () => {
  server = await httpFuzzServer();
});
afterAll(async () => {
  await server.close();
});

test('the oracle reads the token headers as auth.ts does', () => {
  expect(carriesValidToken([['x-api-token', HTTP_TOKEN]])).toBe(true);
  expect(carriesValidToken([['Authorization', `bearer\t${HTTP_TOKEN} `]])).toBe(true);
  expect(
    carriesValidToken([
      ['x-api-token', ' '],
      ['authorization', `Bearer ${HTTP_TOKEN}`],
    ]),
  ).toBe(true);
  expect(
    carriesValidToken([
      ['x-api-token', 'junk'],
      ['authorization', `Bearer ${HTTP_TOKEN}`],
    ]),
  ).toBe(false);
  expect(
    carriesValidToken([
      ['x-api-token', HTTP_TOKEN],
      ['X-API-TOKEN', HTTP_TOKEN],
    ]),
  ).toBe(false);
  expect(carriesValidToken([['authorization', `Basic ${HTTP_TOKEN}`]])).toBe(false);
});

test.each([
  ['paths and request lines', pathRequests],
  ['headers', headerRequests],
])(
  '%s: no protected handler reached without a valid token, no 5xx, every request answered',
  async (_name, requests) => {
    const before = server.entered.size;
    const report = await fuzzHttp(server, requests(server), 400, Number(process.env.FUZZ_SEED ?? 27));
    console.log(`${_name}: ${report.requests} requests, by status ${JSON.stringify(report.byStatus)}`);
    expect(report.breaches).toEqual([]);
    expect(report.serverErrors).toEqual([]);
    expect(report.unanswered).toEqual([]);
    // Requests with the token got through to handlers: the watch sees entries.
    expect(server.entered.size).toBeGreaterThan(before);
    expect(report.byStatus[401] ?? 0).toBeGreaterThan(20);
  },
  120_000,
);
