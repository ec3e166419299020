/** Event logs and `greenline replay`: a faithful log replays without divergence; a tampered one is caught at once. */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { eventsCommand, replayCommand } from '../../cli/replay.js';
import { Engine, type QueueKey } from '../../engine/engine.js';
import { SimCi } from '../../engine/providers/simCi.js';
import { VirtualScheduler } from '../../engine/runtime/scheduler.js';
import { openLmdbStore } from '../../engine/store/index.js';
import { EventLogError, formatEventLog, parseEventLog, replayEventLog, type EventLog, type EventLogEntry } from '../../engine/runtime/eventLog.js';
import { parseScenario } from '../../sim/scenario.js';
import { simulate } from '../../sim/simulate.js';
import { captureConsole } from '../console.js';

let dir: string;
let logs: Map<string, EventLog>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'greenline-replay-'));
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
      { name: 'batch4', batch: true, batchingMinSize: 4, concurrency: 2, optimizationMode: 'bisection_skip_redundant_tests' },
      { name: 'lanes2', mode: 'parallel', concurrency: 2, batch: true, batchingMinSize: 2 },
    ],
  });
  const simulation = await simulate(scenario, { seed: 9, record: true });
  logs = new Map(simulation.queues.flatMap((queue) => (queue.outcome.log === undefined ? [] : [[queue.name, queue.outcome.log]])));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

afterEach(() => {
  vi.restoreAllMocks();
});

function log(name: string): EventLog {
  const found = logs.get(name);
  if (found === undefined) throw new Error(`no log ${name}`);
  // A deep copy: tests tamper with it.
  return parseEventLog(formatEventLog(found));
}

function withEntries(original: EventLog, entries: EventLogEntry[]): EventLog {
  return { header: { ...original.header, events: entries.length }, entries };
}

describe('replay', () => {
  test('a faithful log replays with no divergence: every event and the final state match', () => {
    expect([...logs.keys()]).toEqual(['predictive3', 'batch4', 'lanes2', 'singleQueue']);
    // The parallel queue's log carries each upload of impacted targets, so that the replay uploads it again.
    const uploads = log('lanes2').entries.filter((entry) => entry.input.type === 'targetsSet');
    expect(uploads.length).toBeGreaterThan(10);
    expect(uploads.every((entry) => entry.targets !== undefined)).toBe(true);
    expect(uploads.some((entry) => entry.targets === 'ALL')).toBe(true);
    for (const name of logs.keys()) {
      const original = log(name);
      expect(original.entries.length).toBeGreaterThan(50);
      expect(original.entries.every((entry) => entry.digest !== undefined)).toBe(true);
      expect(replayEventLog(original)).toEqual({ replayed: original.entries.length, checked: original.entries.length, finalChecked: true, divergence: null });
    }
  });

  test('an upload of impacted targets whose list the log lacks is a divergence, named', () => {
    const original = log('lanes2');
    const at = original.entries.findIndex((entry) => entry.input.type === 'targetsSet');
    const entries = original.entries.map((entry, index) => (index === at ? { ...entry, targets: undefined } : entry));
    expect(replayEventLog(withEntries(original, entries)).divergence).toMatchObject({
      seq: at,
      reason: 'the targets of this upload are not in the log (the store no longer held them)',
    });
  });

  test('a simulation writes the same logs every time (ids and times come from the clock and the seed)', async () => {
    const run = () =>
      simulate(
        parseScenario({
          name: 'replay',
          hours: 2,
          arrivalsPerHour: 8,
          ci: { medianMinutes: 20, p90Minutes: 40 },
          brokenRate: 0.15,
          flakeRate: 0.05,
          configs: [{ name: 'q', concurrency: 2 }],
        }),
        { seed: 9, record: true },
      );
    const again = await run();
    const twice = await run();
    expect(formatEventLog(twice.queues[0]?.outcome.log as EventLog)).toBe(formatEventLog(again.queues[0]?.outcome.log as EventLog));
  });

  test('a tampered CI result is reported at its event, with what it changed', () => {
    const original = log('predictive3');
    const index = original.entries.findIndex((entry) => entry.input.type === 'status' && entry.input.state === 'success');
    const tampered = structuredClone(original);
    const entry = tampered.entries[index] as EventLogEntry;
    (entry.input as { state: string }).state = 'failure';
    // Later events are tampered too: the first divergence is the one reported.
    for (const later of tampered.entries.slice(index + 1)) if (later.input.type === 'status') (later.input as { state: string }).state = 'failure';
    const result = replayEventLog(tampered);
    expect(result.replayed).toBe(index + 1);
    expect(result.checked).toBe(index + 1);
    expect(result.finalChecked).toBe(false);
    expect(result.divergence).toMatchObject({ seq: entry.seq, at: entry.at, input: entry.input });
    expect(result.divergence?.reason).toMatch(/^its transaction differs: .*recorded succeeded, replayed failed/);
    expect(result.divergence?.expected).toEqual(entry.changes);
  });

  test('a missing event, a shifted time or another input is caught where it happens', () => {
    const original = log('batch4');
    const dropped = withEntries(
      original,
      original.entries.filter((_, index) => index !== 5),
    );
    expect(replayEventLog(dropped).divergence).toMatchObject({ seq: 6, reason: 'expected event 5 here, the log has event 6' });

    const shifted = structuredClone(original);
    const timer = shifted.entries.findIndex((entry) => entry.input.type === 'status');
    (shifted.entries[timer] as EventLogEntry).at = new Date(Date.parse((shifted.entries[timer] as EventLogEntry).at) + 60_000).toISOString();
    expect(replayEventLog(shifted).divergence?.seq).toBe(timer);

    const resubmitted = structuredClone(original);
    const submit = resubmitted.entries.findIndex((entry) => entry.input.type === 'submitted');
    (resubmitted.entries[submit] as EventLogEntry).input = { type: 'submitted', number: 999 };
    expect(replayEventLog(resubmitted).divergence).toMatchObject({ seq: submit });

    const refused = structuredClone(original);
    (refused.entries[submit] as EventLogEntry).input = { type: 'cancelled', number: 12345 };
    expect(replayEventLog(refused).divergence).toMatchObject({ seq: submit, reason: expect.stringMatching(/^the engine refused the event: pull request #12345 is not in the queue/) });
  });

  test('without per-event digests, the final state is compared', () => {
    const original = log('singleQueue');
    const bare = withEntries(
      original,
      original.entries.map(({ seq, at, input }) => ({ seq, at, input })),
    );
    expect(replayEventLog(bare)).toEqual({ replayed: bare.entries.length, checked: 0, finalChecked: true, divergence: null });
    const tampered = structuredClone(bare);
    const index = tampered.entries.findIndex((entry) => entry.input.type === 'status' && entry.input.state === 'success');
    ((tampered.entries[index] as EventLogEntry).input as { state: string }).state = 'failure';
    expect(replayEventLog(tampered).divergence).toEqual({ seq: null, reason: 'every event replayed, but the final state of the queue differs from the recorded one' });
    const wrongFinal = { ...bare, header: { ...bare.header, finalDigest: '0'.repeat(64) } };
    expect(replayEventLog(wrongFinal).divergence?.seq).toBeNull();
  });

  test('a log that does not parse is an EventLogError naming the line', () => {
    const text = formatEventLog(log('singleQueue'));
    expect(() => parseEventLog('')).toThrow(EventLogError);
    expect(() => parseEventLog(text.replace('"greenline-events"', '"other"'), 'x.jsonl')).toThrow(/x\.jsonl, line 1: log: /);
    const lines = text.trimEnd().split('\n');
    expect(() => parseEventLog([...lines.slice(0, 3), '{"seq": "a"}', ...lines.slice(4)].join('\n'), 'x.jsonl')).toThrow(/x\.jsonl, line 4: /);
    expect(() => parseEventLog(lines.slice(0, -1).join('\n'), 'x.jsonl')).toThrow(/announces \d+ events, the file holds \d+/);
    const notFirst = withEntries(log('singleQueue'), log('singleQueue').entries.slice(1));
    expect(replayEventLog(notFirst).divergence?.reason).toMatch(/not created/);
  });
});

describe('greenline replay and greenline events', () => {
  test('replay prints the outcome: exit 0 when faithful, 1 at a divergence, 2 for an unreadable log', async () => {
    const path = join(dir, 'faithful.jsonl');
    await writeFile(path, formatEventLog(log('batch4')));
    let io = captureConsole();
    expect(await replayCommand(path, {})).toBe(0);
    expect(io.out.join('\n')).toMatch(/^replayed \d+ events of sim\.invalid\/sim\/repo branch main \(sim: replay \/ batch4, seed 9\): no divergence/);

    const tampered = structuredClone(log('batch4'));
    const index = tampered.entries.findIndex((entry) => entry.input.type === 'status');
    ((tampered.entries[index] as EventLogEntry).input as { state: string }).state = 'error';
    await writeFile(path, formatEventLog(tampered));
    vi.restoreAllMocks();
    io = captureConsole();
    expect(await replayCommand(path, {})).toBe(1);
    expect(io.out[0]).toContain(`DIVERGENCE at event ${index}`);
    vi.restoreAllMocks();
    io = captureConsole();
    expect(await replayCommand(path, { json: true })).toBe(1);
    expect(JSON.parse(io.out.join('\n'))).toMatchObject({ divergence: { seq: index } });

    await writeFile(path, 'not json\n');
    vi.restoreAllMocks();
    io = captureConsole();
    expect(await replayCommand(path, {})).toBe(2);
    expect(io.err.join('\n')).toMatch(/line 1: not JSON/);
  });

  test('a queue of a data folder exports and replays, across a restart of the engine', async () => {
    const data = join(dir, 'data');
    const key: QueueKey = { org: 'acme', repo: { host: 'github.com', owner: 'acme', name: 'widgets' }, branch: 'main' };
    const scheduler = new VirtualScheduler(Date.parse('2026-11-22T00:00:00.000Z'));
    const ci = new SimCi(scheduler, { passRate: 0.7, medianMinutes: 10, p90Minutes: 20, seed: 4 });
    const store = openLmdbStore({ dir: data, noSync: true });
    const boot = () => {
      const engine = new Engine(store, {
        scheduler,
        ci,
        onError: (message) => {
          throw new Error(message);
        },
      });
      engine.start();
      return engine;
    };
    let engine = boot();
    engine.createQueue({ ...key, org: 'other' }, {});
    engine.createQueue(key, { concurrency: 2, requiredStatuses: ['greenline/sim-ci'] });
    for (const number of [1, 2, 3, 4]) engine.submitPullRequest(key, number);
    await engine.settle();
    scheduler.advanceBy(12 * 60_000);
    await engine.settle();
    engine.stop();
    engine = boot();
    await engine.settle();
    for (const number of [5, 6]) engine.submitPullRequest(key, number);
    await engine.settle();
    for (let i = 0; i < 20; i++) {
      scheduler.advanceBy(10 * 60_000);
      await engine.settle();
    }
    engine.stop();
    await store.close();

    const out = join(dir, 'exported.jsonl');
    let io = captureConsole();
    expect(await eventsCommand({ repo: 'github.com/acme/widgets', org: 'acme', dataDir: data, out })).toBe(0);
    expect(io.err.join('\n')).toMatch(/^wrote \d+ events to /);
    const exported = parseEventLog(await readFile(out, 'utf8'));
    expect(exported.header.source).toBe(`store: ${data}`);
    expect(exported.entries.some((entry) => entry.input.type === 'merged')).toBe(true);
    // The exported queue was the store's second: replay gives it another id and compares under the recorded one.
    const result = replayEventLog(exported);
    expect(result).toEqual({ replayed: exported.entries.length, checked: 0, finalChecked: true, divergence: null });
    vi.restoreAllMocks();
    io = captureConsole();
    expect(await replayCommand(out, {})).toBe(0);
    expect(io.out[0]).toMatch(/0 of \d+ events carry a digest, and those match; the final state matches/);

    vi.restoreAllMocks();
    io = captureConsole();
    expect(await eventsCommand({ repo: 'acme/nothing', dataDir: data })).toBe(1);
    expect(io.err.join('\n')).toMatch(/no queue for github\.com\/acme\/nothing branch main in organization default/);
  });
});
