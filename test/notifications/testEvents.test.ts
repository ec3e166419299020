/**
 * Flaky-test events: a test that becomes flaky, then broken, is told to the endpoints that take every queue (and not
 * to one limited to a queue), written in the flaky-test transaction and found by the sender's next look (pollMs).
 */
import { afterEach, expect, test } from 'vitest';
import { upload } from '../flaky/helpers.js';
import { KEY, lmdbStore, WebhookHarness, type OpenedStore } from './harness.js';
import { Receiver } from './receiver.js';

let opened: OpenedStore | undefined;
const receiver = new Receiver();
afterEach(async () => {
  await receiver.down();
  await opened?.cleanup();
});

const sha = (n: number) => n.toString(16).padStart(40, '0');

test('a test becoming flaky, then broken, is delivered; an endpoint of one queue does not get it', async () => {
  opened = lmdbStore();
  const h = new WebhookHarness(opened.store, 5_000);
  await receiver.up();
  const { secret } = h.engine.webhooks.create(KEY.org, { url: receiver.url });
  receiver.secret = secret;
  const narrow = h.engine.webhooks.create(KEY.org, {
    url: receiver.url,
    queues: [{ repo: KEY.repo, targetBranch: 'main' }],
  }).endpoint;

  const service = h.engine.flakyTests;
  upload(service, [{ name: 'login works', flakyFailures: ['timeout'] }], {
    sha: sha(999),
    branch: 'pr-1',
    timestamp: h.scheduler.now(),
  });
  await h.advance(5_000, 5_000);
  expect(receiver.events.map((event) => event.type)).toEqual(['test.flaky']);

  for (let n = 0; n < 5; n++) {
    await h.advance(3_600_000, 600_000);
    upload(service, [{ name: 'login works', outcome: 'failed', message: 'boom' }], {
      sha: sha(n),
      branch: 'main',
      timestamp: h.scheduler.now(),
    });
  }
  await h.advance(5_000, 5_000);
  const types = receiver.events.map((event) => event.type);
  expect(types.slice(0, 2)).toEqual(['test.flaky', 'test.broken']);
  const broken = receiver.events[1]?.data as unknown as {
    repo: { name: string };
    test: { name: string; reason: string };
  };
  expect(broken.repo.name).toBe('widgets');
  expect(broken.test).toMatchObject({ name: 'login works', reason: expect.stringMatching(/^broken:/) });
  expect(h.engine.webhooks.messages(KEY.org, narrow.id).messages).toEqual([]);
  expect(h.pending()).toBe(0);
  await h.close();
});
