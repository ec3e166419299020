/**
 * Waiting for a busy queue, the same for every route that writes: a request that met a queue's lock held by another
 * transaction (QueueBusyError: PostgreSQL, another process or a stuck session) runs again a little later, without
 * blocking the process meanwhile, for up to QUEUE_BUSY_WAIT_MS; then it answers the 503 the error carries. One hook
 * (`waitForBusyQueues`) wraps the handler of every route but reads (GET, HEAD, OPTIONS) as it is registered: the
 * API's procedures, the git host's webhook deliveries, the dashboard's forms, whatever is added later.
 */
import type { FastifyInstance, RouteHandlerMethod } from 'fastify';
import { queueBusy } from '../engine/model/unavailable.js';

/** How long a request waits in all for a queue's lock another transaction holds (the store's lock timeout). */
export const QUEUE_BUSY_WAIT_MS = 5_000;

/**
 * Runs `attempt` again while it fails with a QueueBusyError, 2 ms later the first time and twice as long each time
 * after (at most 50 ms), up to `waitMs` in all; then its last failure is thrown. `stop`: whether it may not run again
 * (its answer was sent).
 */
export async function retryWhileBusy<R>(
  attempt: () => R | Promise<R>,
  stop: () => boolean = () => false,
  waitMs = QUEUE_BUSY_WAIT_MS,
): Promise<R> {
  const until = performance.now() + waitMs;
  for (let pause = 2; ; pause = Math.min(2 * pause, 50)) {
    try {
      return await attempt();
    } catch (error) {
      if (queueBusy(error) === undefined || stop() || performance.now() + pause > until) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Every route registered on `app` (and its plugins) after this that may write waits for a busy queue. */
export function waitForBusyQueues(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (methods.every((method) => READS.has(method))) return;
    const handler = route.handler as RouteHandlerMethod;
    route.handler = function waitingForBusyQueue(request, reply) {
      return retryWhileBusy(
        () => handler.call(this, request, reply),
        () => reply.sent,
      );
    };
  });
}
