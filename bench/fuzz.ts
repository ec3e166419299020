/**
 * The fuzzer at scale (fuzzCore.ts): `npm run bench:fuzz [-- REQUESTS [JUNIT_FILES [SEED]]]` (defaults 1,000,000 and
 * 10,000). Generated bodies across every endpoint first, then hostile JUnit uploads (each parsed on a worker thread);
 * prints the answers by status, the rate, and any 5xx, non-error 4xx body or write committed by a rejected request.
 * Exit status 1 when there is any.
 */
import { fuzz, fuzzServer, type FuzzReport } from './fuzzCore.js';
import { hostileJunit } from './junitFuzz.js';

const [REQUESTS = 1_000_000, JUNIT = 10_000, SEED = 19] = process.argv.slice(2).map(Number);
const CHUNK = 10_000;

const server = await fuzzServer();
const total: FuzzReport = { requests: 0, byStatus: {}, serverErrors: [], writesOnRejection: [] };
const add = (report: FuzzReport) => {
  total.requests += report.requests;
  for (const [status, n] of Object.entries(report.byStatus)) total.byStatus[Number(status)] = (total.byStatus[Number(status)] ?? 0) + n;
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
  const report = await fuzz({ ...server, paths: server.paths.filter(({ path }) => path === 'flaky-tests/upload') }, Math.min(500, JUNIT - done), SEED * 7 + chunk, hostileJunit);
  add(report);
  console.log(`JUnit phase: ${total.requests - bodies} requests (${((total.requests - bodies) / ((performance.now() - junitStarted) / 1000)).toFixed(1)}/s)`);
}
for (const line of [...total.serverErrors, ...total.writesOnRejection].slice(0, 20)) console.log(`  ${line}`);
console.log(
  `total: ${total.requests} requests, by status ${JSON.stringify(total.byStatus)}; 5xx or bad error bodies: ${total.serverErrors.length}; writes committed by rejected requests: ${total.writesOnRejection.length}`,
);
await server.close();
process.exitCode = total.serverErrors.length + total.writesOnRejection.length === 0 ? 0 : 1;
