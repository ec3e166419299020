/**
 * The fuzzer at scale (fuzzCore.ts, httpFuzz.ts): `npm run bench:fuzz [-- REQUESTS [JUNIT_FILES [SEED [PATHS
 * [HEADERS]]]]]` (defaults 1,000,000, 10,000, 19, 100,000, 100,000). Generated bodies across every endpoint first,
 * then hostile JUnit uploads (each parsed on a worker thread); prints the answers by status, the rate, and any 5xx,
 * non-error 4xx body or write committed by a rejected request. Then the HTTP edge over raw sockets: generated paths
 * and request lines, then generated headers, with their rate against canonical requests on the same sockets (the
 * baseline), and the handlers of protected routes reached without a valid token (must be 0) and 5xx (must be 0).
 * Exit status 1 when there is any.
 */
import fc from 'fast-check';
import { fuzz, fuzzServer, type FuzzReport } from './fuzzCore.js';
import {
  type FuzzRequest,
  fuzzHttp,
  headerRequests,
  HTTP_TOKEN,
  httpFuzzServer,
  pathRequests,
  type HttpFuzzReport,
} from './httpFuzz.js';
import { hostileJunit } from './junitFuzz.js';

const [REQUESTS = 1_000_000, JUNIT = 10_000, SEED = 19, PATHS = 100_000, HEADERS = 100_000] = process.argv
  .slice(2)
  .map(Number);
const CHUNK = 10_000;

const server = await fuzzServer();
const total: FuzzReport = { requests: 0, byStatus: {}, serverErrors: [], writesOnRejection: [] };
const add = (report: FuzzReport) => {
  total.requests += report.requests;
  for (const [status, n] of Object.entries(report.byStatus))
    total.byStatus[Number(status)] = (total.byStatus[Number(status)] ?? 0) + n;
  total.serverErrors.push(...report.serverErrors);
  total.writesOnRejection.push(...report.writesOnRejection);
};
const started = performance.now();
for (let done = 0, chunk = 0; done < REQUESTS; done += CHUNK, chunk++) {
  add(await fuzz(server, Math.min(CHUNK, REQUESTS - done), SEED * 1000 + chunk, undefined));
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `${total.requests} requests in ${seconds.toFixed(0)} s (${(total.requests / seconds).toFixed(0)}/s), by status ${JSON.stringify(total.byStatus)}, 5xx or bad bodies ${total.serverErrors.length}, writes on rejection ${total.writesOnRejection.length}`,
  );
}
const bodies = total.requests;
const junitStarted = performance.now();
for (let done = 0, chunk = 0; done < JUNIT; done += 500, chunk++) {
  // Only uploads: the JUnit arbitrary as the whole workload.
  const report = await fuzz(
    { ...server, paths: server.paths.filter(({ path }) => path === 'flaky-tests/upload') },
    Math.min(500, JUNIT - done),
    SEED * 7 + chunk,
    hostileJunit,
  );
  add(report);
  console.log(
    `JUnit phase: ${total.requests - bodies} requests (${((total.requests - bodies) / ((performance.now() - junitStarted) / 1000)).toFixed(1)}/s)`,
  );
}
for (const line of [...total.serverErrors, ...total.writesOnRejection].slice(0, 20)) console.log(`  ${line}`);
console.log(
  `total: ${total.requests} requests, by status ${JSON.stringify(total.byStatus)}; 5xx or bad error bodies: ${total.serverErrors.length}; writes committed by rejected requests: ${total.writesOnRejection.length}`,
);
await server.close();

// The HTTP edge: paths and headers over raw sockets, in chunks (each its own seed), against a canonical baseline.
const edge = await httpFuzzServer();
const queueBody = JSON.stringify({ repo: { host: 'github.com', owner: 'acme', name: 'a' }, targetBranch: 'main' });
const canonical: fc.Arbitrary<FuzzRequest> = fc.constantFrom<FuzzRequest>(
  { line: 'GET /healthz HTTP/1.1', headers: [['Host', '127.0.0.1']], body: '' },
  {
    line: 'POST /v1/getQueue HTTP/1.1',
    headers: [
      ['Host', '127.0.0.1'],
      ['x-api-token', HTTP_TOKEN],
      ['Content-Type', 'application/json'],
      ['Content-Length', String(queueBody.length)],
    ],
    body: queueBody,
  },
);
const timed = async (what: string, arbitrary: typeof canonical, count: number) => {
  const report: HttpFuzzReport = { requests: 0, byStatus: {}, breaches: [], serverErrors: [], unanswered: [] };
  const started = performance.now();
  for (let done = 0, chunk = 0; done < count; done += CHUNK, chunk++) {
    const part = await fuzzHttp(edge, arbitrary, Math.min(CHUNK, count - done), SEED * 1000 + chunk);
    report.requests += part.requests;
    for (const [status, n] of Object.entries(part.byStatus))
      report.byStatus[Number(status)] = (report.byStatus[Number(status)] ?? 0) + n;
    report.breaches.push(...part.breaches);
    report.serverErrors.push(...part.serverErrors);
    report.unanswered.push(...part.unanswered);
  }
  const rate = report.requests / ((performance.now() - started) / 1000);
  return { what, report, rate };
};
const baseline = await timed('canonical (baseline)', canonical, Math.max(1000, Math.min(PATHS, 10_000)));
const phases = [await timed('paths', pathRequests(edge), PATHS), await timed('headers', headerRequests(edge), HEADERS)];
for (const { what, report, rate } of [baseline, ...phases]) {
  console.log(
    `${what}: ${report.requests} requests, ${rate.toFixed(0)}/s (${(rate / baseline.rate).toFixed(2)}x the baseline), by status ${JSON.stringify(report.byStatus)}; ` +
      `protected handlers reached without a valid token: ${report.breaches.length}; 5xx: ${report.serverErrors.length}; unanswered: ${report.unanswered.length}`,
  );
  for (const line of [...report.breaches, ...report.serverErrors, ...report.unanswered].slice(0, 10))
    console.log(`  ${line.slice(0, 400)}`);
}
await edge.close();
const edgeFailures = phases.reduce((sum, { report }) => sum + report.breaches.length + report.serverErrors.length, 0);
process.exitCode = total.serverErrors.length + total.writesOnRejection.length + edgeFailures === 0 ? 0 : 1;
