/**
 * kill -9 of the real service in the middle of a delivery (the receiver holds the request unanswered): after the
 * restart nothing is lost. The message that was in flight is sent again with the same webhook-id (at least once);
 * the receiver dedupes by it, so every event of each PR's life is taken once and in order.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { call, eventually, startServer, stop, withDataDir, type Running } from '../e2e/process.js';
import { Receiver } from './receiver.js';

const QUEUE = { repo: { host: 'github.com', owner: 'acme', name: 'widgets' }, targetBranch: 'main' };
const TOKEN = 'acme-secret-token-123456';
const running: Running[] = [];
const receiver = new Receiver();
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => stop(server, 'SIGKILL')));
  await receiver.down();
});

async function start(env: Record<string, string>): Promise<Running> {
  const server = await startServer(env);
  running.push(server);
  return server;
}

describe('webhooks across kill -9 of the service', () => {
  test('a delivery cut off by kill -9 is sent again after the restart with the same webhook-id; none is lost', async () => {
    await withDataDir(async (dir) => {
      const env = {
        GREENLINE_DATA: dir,
        GREENLINE_API_TOKENS: `acme:${TOKEN}`,
        GREENLINE_PROVIDER: 'sim',
        GREENLINE_SIM_CI: 'pass=1,median=0.01,p90=0.02',
        // The receiver is on loopback: allowed here, as nowhere in production unless said so.
        GREENLINE_WEBHOOKS_ALLOW_PRIVATE: '1',
      };
      await receiver.up();
      const server = await start(env);
      const response = await call(server, '/v1/webhooks/create', TOKEN, { url: receiver.url });
      expect(response.status, await response.clone().text()).toBe(200);
      const created = (await response.json()) as { endpoint: { id: string }; secret: string };
      receiver.secret = created.secret;
      expect((await call(server, '/v1/createQueue', TOKEN, { ...QUEUE, concurrency: 2 })).status).toBe(200);

      // The first delivery reaches the receiver, which does not answer: the service is mid-delivery when it dies.
      receiver.hold = true;
      const held = new Promise<void>((resolve) => {
        receiver.onHeld = resolve;
      });
      for (const number of [1, 2])
        expect((await call(server, '/v1/submitPullRequest', TOKEN, { ...QUEUE, pr: { number } })).status).toBe(200);
      await held;
      const cutOff = receiver.arrivals[0]?.id;
      expect(cutOff).toMatch(/^msg_/);
      await stop(server, 'SIGKILL');
      receiver.hold = false;

      const after = await start(env);
      const pr = (number: number) =>
        call(after, '/v1/getSubmittedPullRequest', TOKEN, { ...QUEUE, pr: { number } }).then(
          (r) => r.json() as Promise<{ state: string }>,
        );
      for (const number of [1, 2])
        await eventually(
          () => pr(number),
          (value) => value.state === 'MERGED',
        );
      const expected = {
        1: ['submitted', 'testing', 'passed', 'merged'],
        2: ['submitted', 'testing', 'passed', 'merged'],
      };
      await eventually(
        async () => Object.fromEntries(receiver.byPr()),
        (byPr) => JSON.stringify(byPr) === JSON.stringify(expected),
      );
      // The one cut off arrived twice (before the kill, unanswered, and after the restart) and was taken once.
      expect(receiver.arrivals.filter((arrival) => arrival.id === cutOff).length).toBeGreaterThanOrEqual(2);
      expect(receiver.events.filter((event) => event.id === cutOff)).toHaveLength(1);
      expect(receiver.arrivals.every((arrival) => arrival.verified)).toBe(true);

      const listed = (await (
        await call(after, '/v1/webhooks/deliveries/list', TOKEN, { endpointId: created.endpoint.id })
      ).json()) as { deliveries: { status: string }[] };
      expect(listed.deliveries).toHaveLength(receiver.events.length);
      expect(listed.deliveries.every((delivery) => delivery.status === 'delivered')).toBe(true);
    });
  });
});
