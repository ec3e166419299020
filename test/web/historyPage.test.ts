/**
 * The history page when a search stopped at its scan limit (engine/history/endedIndex.ts): it says how far back it
 * looked and offers to search older PRs, instead of claiming that nothing matches.
 */
import { describe, expect, test } from 'vitest';
import type { QueueRecord } from '../../engine/model/queues.js';
import { historyBody } from '../../web/historyPage.js';

const queue = {
  id: 'q_1',
  repo: { host: 'github.com', owner: 'acme', name: 'app' },
  branch: 'main',
} as unknown as QueueRecord;
const now = Date.parse('2026-03-01T12:00:00Z');

describe('the history page after a bounded search', () => {
  test('a search that stopped early says how far back it looked and links to older PRs', () => {
    const body = historyBody(
      queue,
      { rows: [], next: '1772280000000.42', searchedBack: '2026-02-28T12:00:00.000Z' },
      { search: 'flaky parser', after: '' },
      now,
    ).toString();
    expect(body).toContain('data-field="history-searched-back"');
    expect(body).toContain('No PR that ended since then matches “flaky parser”');
    expect(body).not.toContain('No ended PR matches');
    expect(body).toMatch(
      /href="\/queues\/q_1\/history\?q=flaky\+parser&amp;after=1772280000000\.42" rel="next">Search older</,
    );
  });

  test('a search that looked at everything says that nothing matches, with no link onwards', () => {
    const body = historyBody(queue, { rows: [] }, { search: 'flaky parser', after: '' }, now).toString();
    expect(body).toContain('No ended PR matches “flaky parser”');
    expect(body).not.toContain('history-searched-back');
    expect(body).not.toContain('rel="next"');
  });
});
