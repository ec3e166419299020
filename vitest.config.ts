import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Tests that start servers, databases, browsers or other processes: under load (several suites on two cores) their
 * set-up alone can take longer than any fixed per-test timeout, so they wait on readiness and progress (the
 * "listening" line, a state reached) and get a budget that only stops a test that is stuck, not one that is slow.
 */
const PROCESSES = [
  'test/e2e/**/*.test.ts',
  'test/postgres/**/*.test.ts',
  'test/git/**/*.test.ts',
  'test/hardening/dependencyDown.test.ts',
  'test/github/serve.test.ts',
  'test/github/standIn.test.ts',
  'test/web/dashboard.browser.test.ts',
  'test/web/dashboardSessions.browser.test.ts',
  // The "what if" runs `greenline sim --from-queue --recommend` in a child process, and in a served dashboard.
  'test/web/whatIf.test.ts',
  'test/web/whatIf.browser.test.ts',
  'test/metrics/prometheus.test.ts',
  'test/engine/store.postgres.test.ts',
  'test/sim/**/*.postgres.test.ts',
  // The simulator against a real `greenline serve` with real git and the built-in CI, in real time.
  'test/sim/fidelity.test.ts',
  'test/engine/store.lmdb.test.ts',
  'test/flaky/cli.test.ts',
  'test/flaky/repoRoot.test.ts',
  'test/hardening/diskFull.test.ts',
  'test/hardening/expectContinue.test.ts',
  'test/hardening/pathSpellings.test.ts',
  'test/readme/readme.test.ts',
  'test/conformance/**/*.test.ts',
  'test/notifications/**/*.test.ts',
  // Twelve connections of load for seconds: on a busy machine it takes many times its quiet 9 s.
  'test/hardening/load.test.ts',
  // Two whole --recommend searches (tens of simulations each): 50–70 s beside the simulator benches, 30 s budget.
  'test/sim/recommend.test.ts',
];
/** The fast lane (`npm run test:fast`): the machines, the planner and the API in process. */
const FAST = ['test/machines/**/*.test.ts', 'test/planner/**/*.test.ts', 'test/api/**/*.test.ts'];
/** A budget for a stuck test, not a speed requirement: a loaded machine may take many times a quiet one's time. */
const PROCESS_BUDGET_MS = 600_000;
/**
 * The same for the tests that start no process but are CPU-bound: replaying every generated path of the PR machine
 * takes 12 s at a load average of 15 on two cores and 40 s at 23; at a load average of 28 the JUnit corpus upload,
 * the retention sweep, the speculation and theory simulations each ran past 30 s (a whole `npm test` beside eight
 * other sessions: 3,687 s, 5 failures, 4 of them this budget).
 */
const CPU_BUDGET_MS = 300_000;

/**
 * Test files run side by side: most of the suite's time is spent waiting on other processes (PostgreSQL, Chromium,
 * git, a served greenline, a scenario in real time), not on its own CPU. Vitest's default is one file fewer than the
 * cores, which on a 2-core machine is one file at a time (a whole `npm test` then took 952 s); one more than the cores
 * keeps both cores busy while a file waits.
 */
const WORKERS = availableParallelism() + 1;

export default defineConfig({
  test: {
    maxWorkers: WORKERS,
    // expect.poll waits as long as the test's budget allows (its default, 1 s, is a clock of its own: a loaded machine
    // answers later, not never).
    expect: { poll: { timeout: PROCESS_BUDGET_MS } },
    // Every response an API server of the suite sends is checked against the generated OpenAPI document.
    setupFiles: ['test/openapi/setup.ts'],
    // LMDB is a native module: keep the default `forks` pool, one process per file.
    pool: 'forks',
    projects: [
      // One module registry per worker, not per file: the files share zod, Fastify and the engine, and importing them
      // again for each file was a third of the lane's time. Its tests start no processes and keep no global state.
      { extends: true, test: { name: 'fast', include: FAST, isolate: false, testTimeout: CPU_BUDGET_MS } },
      {
        extends: true,
        test: { name: 'processes', include: PROCESSES, testTimeout: PROCESS_BUDGET_MS, hookTimeout: PROCESS_BUDGET_MS },
      },
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...FAST, ...PROCESSES, '**/node_modules/**'],
          testTimeout: CPU_BUDGET_MS,
          hookTimeout: CPU_BUDGET_MS,
        },
      },
    ],
  },
});
