/** `greenline replay` and `greenline events` on the logs of a recorded simulation (test/sim/replayLogs.ts) and of a served queue. */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test, vi } from 'vitest';
import { eventsCommand, replayCommand } from '../../cli/replay.js';
import { Engine, type QueueKey } from '../../engine/engine.js';
import { SimCi } from '../../engine/providers/simCi.js';
import { VirtualScheduler } from '../../engine/runtime/scheduler.js';
import { openLmdbStore } from '../../engine/store/index.js';
import { formatEventLog, parseEventLog, replayEventLog, type EventLogEntry } from '../../engine/runtime/eventLog.js';
import { captureConsole } from '../console.js';
import { useRecordedLogs } from './replayLogs.js';

const recorded = useRecordedLogs();
const log = recorded.log;

describe('greenline replay and greenline events', () => {
  test('replay prints the outcome: exit 0 when faithful, 1 at a divergence, 2 for an unreadable log', async () => {
    const path = join(recorded.dir(), 'faithful.jsonl');
    await writeFile(path, formatEventLog(log('batch4')));
    let io = captureConsole();
    expect(await replayCommand(path, {})).toBe(0);
    expect(io.out.join('\n')).toMatch(
      /^replayed \d+ events of sim\.invalid\/sim\/repo branch main \(sim: replay \/ batch4, seed 9\): no divergence/,
    );

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
    const data = join(recorded.dir(), 'data');
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

    const out = join(recorded.dir(), 'exported.jsonl');
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
