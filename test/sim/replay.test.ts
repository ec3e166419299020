/** Event logs and `greenline replay`: a faithful log replays without divergence; a tampered one is caught at once. */
import { describe, expect, test } from 'vitest';
import {
  EventLogError,
  formatEventLog,
  parseEventLog,
  replayEventLog,
  type EventLog,
  type EventLogEntry,
} from '../../engine/runtime/eventLog.js';
import { parseScenario } from '../../sim/scenario.js';
import { simulate } from '../../sim/simulate.js';
import { useRecordedLogs, withEntries } from './replayLogs.js';

const recorded = useRecordedLogs();
const log = recorded.log;

describe('replay', () => {
  test('a faithful log replays with no divergence: every event and the final state match', () => {
    expect([...recorded.logs().keys()]).toEqual(['predictive3', 'batch4', 'lanes2', 'singleQueue']);
    // The parallel queue's log carries each upload of impacted targets, so that the replay uploads it again.
    const uploads = log('lanes2').entries.filter((entry) => entry.input.type === 'targetsSet');
    expect(uploads.length).toBeGreaterThan(10);
    expect(uploads.every((entry) => entry.targets !== undefined)).toBe(true);
    expect(uploads.some((entry) => entry.targets === 'ALL')).toBe(true);
    for (const name of recorded.logs().keys()) {
      const original = log(name);
      expect(original.entries.length).toBeGreaterThan(50);
      expect(original.entries.every((entry) => entry.digest !== undefined)).toBe(true);
      expect(replayEventLog(original)).toEqual({
        replayed: original.entries.length,
        checked: original.entries.length,
        finalChecked: true,
        divergence: null,
      });
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
    expect(formatEventLog(twice.queues[0]?.outcome.log as EventLog)).toBe(
      formatEventLog(again.queues[0]?.outcome.log as EventLog),
    );
  });

  test('a tampered CI result is reported at its event, with what it changed', () => {
    const original = log('predictive3');
    const index = original.entries.findIndex(
      (entry) => entry.input.type === 'status' && entry.input.state === 'success',
    );
    const tampered = structuredClone(original);
    const entry = tampered.entries[index] as EventLogEntry;
    (entry.input as { state: string }).state = 'failure';
    // Later events are tampered too: the first divergence is the one reported.
    for (const later of tampered.entries.slice(index + 1))
      if (later.input.type === 'status') (later.input as { state: string }).state = 'failure';
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
    expect(replayEventLog(dropped).divergence).toMatchObject({
      seq: 6,
      reason: 'expected event 5 here, the log has event 6',
    });

    const shifted = structuredClone(original);
    const timer = shifted.entries.findIndex((entry) => entry.input.type === 'status');
    (shifted.entries[timer] as EventLogEntry).at = new Date(
      Date.parse((shifted.entries[timer] as EventLogEntry).at) + 60_000,
    ).toISOString();
    expect(replayEventLog(shifted).divergence?.seq).toBe(timer);

    const resubmitted = structuredClone(original);
    const submit = resubmitted.entries.findIndex((entry) => entry.input.type === 'submitted');
    (resubmitted.entries[submit] as EventLogEntry).input = { type: 'submitted', number: 999 };
    expect(replayEventLog(resubmitted).divergence).toMatchObject({ seq: submit });

    const refused = structuredClone(original);
    (refused.entries[submit] as EventLogEntry).input = { type: 'cancelled', number: 12345 };
    expect(replayEventLog(refused).divergence).toMatchObject({
      seq: submit,
      reason: expect.stringMatching(/^the engine refused the event: pull request #12345 is not in the queue/),
    });
  });

  test('without per-event digests, the final state is compared', () => {
    const original = log('singleQueue');
    const bare = withEntries(
      original,
      original.entries.map(({ seq, at, input }) => ({ seq, at, input })),
    );
    expect(replayEventLog(bare)).toEqual({
      replayed: bare.entries.length,
      checked: 0,
      finalChecked: true,
      divergence: null,
    });
    const tampered = structuredClone(bare);
    const index = tampered.entries.findIndex(
      (entry) => entry.input.type === 'status' && entry.input.state === 'success',
    );
    ((tampered.entries[index] as EventLogEntry).input as { state: string }).state = 'failure';
    expect(replayEventLog(tampered).divergence).toEqual({
      seq: null,
      reason: 'every event replayed, but the final state of the queue differs from the recorded one',
    });
    const wrongFinal = { ...bare, header: { ...bare.header, finalDigest: '0'.repeat(64) } };
    expect(replayEventLog(wrongFinal).divergence?.seq).toBeNull();
  });

  test('a log that does not parse is an EventLogError naming the line', () => {
    const text = formatEventLog(log('singleQueue'));
    expect(() => parseEventLog('')).toThrow(EventLogError);
    expect(() => parseEventLog(text.replace('"greenline-events"', '"other"'), 'x.jsonl')).toThrow(
      /x\.jsonl, line 1: log: /,
    );
    const lines = text.trimEnd().split('\n');
    expect(() =>
      parseEventLog([...lines.slice(0, 3), '{"seq": "a"}', ...lines.slice(4)].join('\n'), 'x.jsonl'),
    ).toThrow(/x\.jsonl, line 4: /);
    expect(() => parseEventLog(lines.slice(0, -1).join('\n'), 'x.jsonl')).toThrow(
      /announces \d+ events, the file holds \d+/,
    );
    const notFirst = withEntries(log('singleQueue'), log('singleQueue').entries.slice(1));
    expect(replayEventLog(notFirst).divergence?.reason).toMatch(/not created/);
  });
});
