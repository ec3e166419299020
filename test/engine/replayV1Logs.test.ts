/**
 * Event logs recorded by the build before pullRequest machine version 2 (the simulator with `record`, seed 9, the
 * scenario of test/sim/replay.test.ts with two queues: `batch4`, bisecting with skip-redundant, and `spec`, with
 * speculation, anti-flake retests and optimistic merges) replay on this build with every event's digest and the final
 * state matching: the machine now owns the merge under way and bisection membership, yet decides and stores as before
 * (digests take its snapshots in their version-1 form). The logs were recorded again by that build once it had issue
 * 22's likelihood model (branch issue-22b at 3e019b3), which stores other estimates on each PR; the same recipe on
 * d2d1ae6 gives the first recording byte for byte.
 */
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { parseEventLog, replayEventLog } from '../../engine/runtime/eventLog.js';

test.each(['log-v1-batch4.jsonl', 'log-v1-speculation.jsonl'])('%s replays without divergence', (file) => {
  const log = parseEventLog(readFileSync(new URL(`./fixtures/${file}`, import.meta.url), 'utf8'));
  const result = replayEventLog(log);
  expect(result.divergence).toBeNull();
  expect(result.checked).toBe(log.entries.length);
  expect(result.finalChecked).toBe(true);
});
