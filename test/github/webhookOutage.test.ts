/**
 * Webhook deliveries while GitHub's API is down: a signed delivery is stored and answered 202 at once, whatever the
 * work it asks for needs of GitHub's API, and that work is done once the API answers again. A redelivery (same
 * X-GitHub-Delivery) is answered 200 and applied once.
 */
import { describe, expect, test } from 'vitest';
import { closeQueuesAfterEach, ONE_AND_TWO, opened } from './fixture.js';
import type { GitHubQueue } from './harness.js';
import { signedDelivery } from './webhookExamples.js';

closeQueuesAfterEach();

async function post(q: GitHubQueue, name: string, payload: unknown, id?: string) {
  const delivery = await signedDelivery('webhook-secret-for-tests', name, payload, id);
  return q.app.inject({ method: 'POST', url: '/github/webhooks', headers: delivery.headers, payload: delivery.body });
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('GitHub mode: webhooks while GitHub is down', () => {
  test("GitHub's API hangs: the command is answered 202 while GitHub still hangs, and applied once it answers", async () => {
    const q = await opened();
    let release: (() => void) | undefined;
    q.github.hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    const response = await post(q, 'issue_comment', q.commentPayload(1, '/greenline merge'), 'hung-1');
    expect(response.statusCode).toBe(202);
    // The work that needs GitHub's API started after the answer, and is still waiting on GitHub.
    await until(() => q.github.held > 0);
    expect(() => q.pr(1)).toThrow(/never submitted/);
    // GitHub answers again.
    q.github.hold = undefined;
    release?.();
    await q.drive();
    expect(q.pr(1).state).toBe('TESTING');
    expect(
      q.github.comments.filter((comment) => comment.issue === 1 && comment.body.includes('submitted')),
    ).toHaveLength(1);
  });

  test("GitHub's API answers 503: accepted at once, retried with backoff, applied when GitHub is back; a redelivery is applied once", async () => {
    const q = await opened();
    const backAt = q.clock.now() + 10 * 60_000;
    q.github.outage = () => q.clock.now() < backAt;
    const payload = q.commentPayload(1, '/greenline merge');
    const first = await post(q, 'issue_comment', payload, 'down-1');
    expect(first.statusCode).toBe(202);
    expect(first.json()).toEqual({ message: 'accepted' });
    await q.settle();
    expect(() => q.pr(1)).toThrow(/never submitted/);
    expect(q.errors.some((error) => error.includes('webhook delivery down-1 (issue_comment) failed (attempt 1)'))).toBe(
      true,
    );
    // GitHub redelivers it (or someone does, by hand): the same delivery, accepted once.
    const again = await post(q, 'issue_comment', payload, 'down-1');
    expect(again.statusCode).toBe(200);
    await q.drive();
    expect(q.clock.now()).toBeGreaterThanOrEqual(backAt);
    expect(q.pr(1).state).toBe('TESTING');
    expect(q.inputs('submitted')).toHaveLength(1);
    expect(q.store.read((tx) => tx.count('webhookInbox'))).toBe(0);
  });

  test('a delivery being applied when the service stops goes back to the inbox and is applied after the next start', async () => {
    const q = await opened();
    let release: (() => void) | undefined;
    q.github.hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    expect((await post(q, 'issue_comment', q.commentPayload(1, '/greenline merge'), 'interrupted')).statusCode).toBe(
      202,
    );
    await until(() => q.github.held > 0);
    const halted = q.halt();
    q.github.hold = undefined;
    release?.();
    await halted;
    expect(q.store.read((tx) => tx.get('webhookInbox', ['interrupted'])?.claimedUntil)).toBe(0);
    await q.boot();
    await q.drive();
    expect(q.pr(1).state).toBe('TESTING');
  });

  test('a delivery the engine refuses is not retried; one accepted before a restart is applied after it', async () => {
    const q = await opened({ labelCommandsEnabled: true, enqueueingLabel: 'merge-me' }, ONE_AND_TWO);
    q.github.outage = () => true;
    expect((await post(q, 'issue_comment', q.commentPayload(1, '/greenline merge'), 'before-restart')).statusCode).toBe(
      202,
    );
    await q.settle();
    await q.halt();
    q.github.outage = () => false;
    await q.boot();
    await q.drive();
    expect(q.pr(1).state).toBe('TESTING');
    // A draining queue refuses submits (an EngineError): the delivery leaves the inbox at once, said in the log.
    q.engine.updateQueue(q.key, { state: 'draining' });
    const labeled = q.pullRequestPayload('labeled', 2);
    labeled.label = { ...labeled.label, name: 'merge-me' };
    expect((await post(q, 'pull_request', labeled, 'refused')).statusCode).toBe(202);
    await q.settle();
    expect(q.store.read((tx) => tx.count('webhookInbox'))).toBe(0);
    expect(
      q.errors.filter((error) =>
        error.includes('webhook delivery refused (pull_request) was refused; not tried again'),
      ),
    ).toHaveLength(1);
    expect(() => q.pr(2)).toThrow(/never submitted/);
  });
});
