/**
 * The event logs the replay tests read (test/sim/replay.test.ts, replayCli.test.ts): a four-hour simulation of three
 * configurations (predictive with optimistic merge, batches bisected skipping redundant tests, parallel lanes),
 * recorded; and a scratch folder for each test file, which it removes.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, vi } from 'vitest';
import { formatEventLog, parseEventLog, type EventLog, type EventLogEntry } from '../../engine/runtime/eventLog.js';
import { parseScenario } from '../../sim/scenario.js';
import { simulate } from '../../sim/simulate.js';

/** The recorded logs by configuration name, and a new scratch folder. */
export async function recordLogs(): Promise<{ dir: string; logs: Map<string, EventLog> }> {
  const dir = await mkdtemp(join(tmpdir(), 'greenline-replay-'));
  const scenario = parseScenario({
    name: 'replay',
    hours: 4,
    arrivalsPerHour: 8,
    ci: { medianMinutes: 20, p90Minutes: 40 },
    brokenRate: 0.15,
    flakeRate: 0.05,
    priorityMix: { urgent: 1, medium: 8 },
    targets: { count: 12, perPr: 2, allShare: 0.1 },
    configs: [
      { name: 'predictive3', concurrency: 3, pendingFailureDepth: 1, canOptimisticallyMerge: true },
      {
        name: 'batch4',
        batch: true,
        batchingMinSize: 4,
        concurrency: 2,
        optimizationMode: 'bisection_skip_redundant_tests',
      },
      { name: 'lanes2', mode: 'parallel', concurrency: 2, batch: true, batchingMinSize: 2 },
    ],
  });
  const simulation = await simulate(scenario, { seed: 9, record: true });
  const logs = new Map(
    simulation.queues.flatMap((queue) => (queue.outcome.log === undefined ? [] : [[queue.name, queue.outcome.log]])),
  );
  return { dir, logs };
}

export function logOf(logs: Map<string, EventLog>, name: string): EventLog {
  const found = logs.get(name);
  if (found === undefined) throw new Error(`no log ${name}`);
  // A deep copy: tests tamper with it.
  return parseEventLog(formatEventLog(found));
}

export function withEntries(original: EventLog, entries: EventLogEntry[]): EventLog {
  return { header: { ...original.header, events: entries.length }, entries };
}

/**
 * For a test file: the logs recorded once before its tests (and its scratch folder removed after them), mocks restored
 * after each test; `log` gives a deep copy of one (tests tamper with it).
 */
export function useRecordedLogs(): {
  dir: () => string;
  logs: () => Map<string, EventLog>;
  log: (name: string) => EventLog;
} {
  let recorded: { dir: string; logs: Map<string, EventLog> } | undefined;
  beforeAll(async () => {
    recorded = await recordLogs();
  });
  afterAll(async () => {
    if (recorded !== undefined) await rm(recorded.dir, { recursive: true, force: true });
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });
  const get = () => {
    if (recorded === undefined) throw new Error('the logs are recorded before the tests (beforeAll)');
    return recorded;
  };
  return { dir: () => get().dir, logs: () => get().logs, log: (name) => logOf(get().logs, name) };
}
