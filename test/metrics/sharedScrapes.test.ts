/**
 * Scrapes that arrive together share one collect and render (engine/metrics/sharedScrapes.ts): N scrapers at once
 * cost one read of the organization's queues, not N; each answer still shows what was committed before it arrived.
 */
import { describe, expect, test } from 'vitest';
import { renderMetrics } from '../../engine/metrics/index.js';
import type { Store } from '../../engine/store/store.js';
import { KEY, QueueHarness } from '../engine/queueHarness.js';

/** The store, with its read transactions counted. */
function counted(store: Store): { store: Store; reads: () => number } {
  let reads = 0;
  const proxy = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (name !== 'read' || typeof value !== 'function')
        return typeof value === 'function' ? value.bind(target) : value;
      return (fn: never) => {
        reads += 1;
        return (value as Store['read']).call(target, fn);
      };
    },
  });
  return { store: proxy, reads: () => reads };
}

describe('shared scrapes', () => {
  test('five scrapes in one turn read the store as one does, and get the same text', async () => {
    const h = new QueueHarness();
    await h.create();
    await h.submit(1, 2);
    const { store, reads } = counted(h.store);
    const one = await renderMetrics({ store, org: 'acme', now: h.scheduler.now() });
    const perScrape = reads();
    expect(perScrape).toBeGreaterThan(0);
    const five = await Promise.all(
      Array.from({ length: 5 }, () => renderMetrics({ store, org: 'acme', now: h.scheduler.now() })),
    );
    expect(reads() - perScrape).toBe(perScrape);
    for (const answer of five) expect(answer.text).toBe(one.text);
  });

  test('a scrape after a commit shows it; other organizations and filters are rendered apart', async () => {
    const h = new QueueHarness();
    await h.create();
    const before = await renderMetrics({ store: h.store, org: 'acme', now: h.scheduler.now() });
    const depth = (text: string) => /mq_depth_current\{[^}]*queue_type="main"[^}]*\} (\d+)/.exec(text)?.[1];
    expect(depth(before.text)).toBe('0');
    // Asked in the same turn as the submit below, answered from a render that reads the store after it.
    const pending = renderMetrics({ store: h.store, org: 'acme', now: h.scheduler.now() });
    const other = renderMetrics({ store: h.store, org: 'other', now: h.scheduler.now() });
    h.engine.submitPullRequest(KEY, 1);
    expect(depth((await pending).text)).toBe('1');
    expect((await other).text).not.toContain('acme/widgets');
  });
});
