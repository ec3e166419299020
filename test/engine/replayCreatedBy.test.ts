/** A queue created through the API records the token that created it; its log replays to the same state. */
import { expect, test } from 'vitest';
import { exportEventLog, replayEventLog } from '../../engine/runtime/eventLog.js';
import { KEY, QueueHarness } from './queueHarness.js';

test('a log whose created event names its token replays without divergence', async () => {
  const h = new QueueHarness();
  h.queueId = h.engine.createQueue(KEY, { requiredStatuses: ['ci'] }, 'tok_admin').id;
  await h.engine.settle();
  await h.submit(1);
  await h.pass(1);
  const log = exportEventLog(h.store, KEY, 'test');
  expect(log.entries[0]?.input).toMatchObject({ type: 'created', by: 'tok_admin' });
  expect(replayEventLog(log).divergence).toBeNull();
});
