/**
 * A Slack incoming-webhook endpoint gets Block Kit messages (a mrkdwn section and a context line, with a text
 * fallback), filtered per queue and per event type; text from outside is escaped so it cannot make links or mentions.
 * Also: the URL policy's lookup refuses a name that resolves to loopback, at send time.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, test } from 'vitest';
import { guardedLookup } from '../../engine/notifications/urlPolicy.js';
import { httpTransport } from '../../engine/notifications/transport.js';
import { KEY, lmdbStore, WebhookHarness, type OpenedStore } from './harness.js';

let opened: OpenedStore | undefined;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  await opened?.cleanup();
  opened = undefined;
});

async function slackStandIn(): Promise<{
  url: string;
  bodies: Record<string, unknown>[];
  headers: Record<string, unknown>[];
}> {
  const bodies: Record<string, unknown>[] = [];
  const headers: Record<string, unknown>[] = [];
  const server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      bodies.push(JSON.parse(text) as Record<string, unknown>);
      headers.push(request.headers);
      response.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/services/T0/B0/x`, bodies, headers };
}

test('Slack gets Block Kit for the queue and event types it chose, escaped', async () => {
  opened = lmdbStore();
  const h = new WebhookHarness(opened.store);
  const slack = await slackStandIn();
  h.engine.webhooks.create(KEY.org, {
    kind: 'slack',
    url: slack.url,
    eventTypes: ['pull_request.merged', 'pull_request.failed'],
    queues: [{ repo: { host: 'GitHub.com', owner: 'ACME', name: 'widgets' }, targetBranch: 'main' }],
  });
  // Another queue's events are not this endpoint's.
  h.engine.createQueue({ ...KEY, branch: 'release' }, { requiredStatuses: ['ci'] });
  h.engine.submitPullRequest({ ...KEY, branch: 'release' }, 9);
  await h.create();
  await h.submit(1);
  await h.report(1, 'success');
  await h.submit(2);
  await h.report(2, 'failure');
  await h.close();

  expect(slack.bodies).toHaveLength(2);
  const [merged, failed] = slack.bodies as {
    text: string;
    blocks: { type: string; text?: { type: string; text: string }; elements?: { type: string; text: string }[] }[];
  }[];
  expect(merged?.blocks.map((block) => block.type)).toEqual(['section', 'context']);
  expect(merged?.blocks[0]?.text).toEqual({
    type: 'mrkdwn',
    text: expect.stringMatching(
      /^\*:white_check_mark: Merged\* <https:\/\/github\.com\/acme\/widgets\/pull\/1\|acme\/widgets#1>/,
    ),
  });
  expect(merged?.text).toBe(merged?.blocks[0]?.text?.text);
  expect(failed?.text).toMatch(/Removed: failed/);
  // The reason is in the context line, and nothing in it is a link or a mention.
  const reason = failed?.blocks[1]?.elements?.[0]?.text ?? '';
  expect(reason).toMatch(/\S/);
  expect(reason).not.toMatch(/[<>]/);
  // Slack is not sent Standard Webhooks headers (its URL is its secret).
  expect(slack.headers[0]?.['webhook-signature']).toBeUndefined();
});

test('a name that resolves to loopback is refused when the connection looks it up, not only when registered', async () => {
  const refused = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
    guardedLookup({ allowPrivate: false })('localhost', {}, (error) => resolve(error)),
  );
  expect(refused?.code).toBe('EADDRNOTALLOWED');
  const allowed = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
    guardedLookup({ allowPrivate: true })('localhost', {}, (error) => resolve(error)),
  );
  expect(allowed).toBeNull();
  // The transport checks the URL itself again (a literal address is never looked up).
  const result = await httpTransport({ allowPrivate: false })('http://127.0.0.1:9/', {}, '{}');
  expect(result).toMatchObject({ excerpt: expect.stringMatching(/refused: 127\.0\.0\.1 is a loopback address/) });
  expect(result.status).toBeUndefined();
});
