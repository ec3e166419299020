/**
 * Flaky-test events (a test became flaky, broken or quarantined): written as messages in the flaky-test transaction
 * that moves the test into the list, so the event exists exactly when the change does. The sender finds them on its
 * next look (Webhooks' `pollMs`).
 */
import type { ChangeContext } from '../flaky/transitions.js';
import type { FlakyTestRecord } from '../flaky/records.js';
import type { EventType } from './events.js';
import { writeMessages } from './messages.js';

const TYPES: Record<'flaky' | 'broken' | 'quarantined', EventType> = {
  flaky: 'test.flaky',
  broken: 'test.broken',
  quarantined: 'test.quarantined',
};

export function noteTestEvent(
  context: ChangeContext,
  list: 'flaky' | 'broken' | 'quarantined',
  test: FlakyTestRecord,
): void {
  const { tx, org, repoId, seq, now } = context;
  const repo = tx.get('flakyRepos', [org, repoId])?.repo;
  if (repo === undefined) return;
  const event = {
    id: `${org}/${repoId}/${seq}/${test.id}/${list}`,
    type: TYPES[list],
    timestamp: new Date(now).toISOString(),
    data: {
      repo,
      test: {
        id: test.id,
        name: test.name,
        classname: test.classname,
        file: test.file,
        status: test.status.value,
        reason: test.status.reason,
      },
    },
  };
  writeMessages(tx, org, [event], now);
}
