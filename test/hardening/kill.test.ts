/**
 * kill -9 under load, short (bench/killCore.ts; `npm run bench:kill` runs 100 kills): a served child process killed
 * twice at random moments while clients submit, cancel and report statuses loses and duplicates nothing, merges
 * nothing twice, and every queue's event log replays.
 */
import { expect, test } from 'vitest';
import { killUnderLoad } from '../../bench/killCore.js';

test('two kills under load: every acknowledged write is there once, and the event logs replay', async () => {
  const report = await killUnderLoad(2);
  expect(report.kills).toBe(2);
  expect(report.submits).toBeGreaterThan(0);
  expect(report.lost).toEqual([]);
  expect(report.duplicated).toEqual([]);
  expect(report.mergedTwice).toEqual([]);
  expect(report.divergences).toEqual([]);
  expect(report.replayed).toBeGreaterThan(report.submits);
});
