/** The tRPC instance every router of the service builds on: its context and its procedure. */
import { initTRPC } from '@trpc/server';
import type { Engine } from '../engine/engine.js';
import { queueBusy } from '../engine/model/unavailable.js';

export interface Context {
  /** The organization of the request's token. */
  org: string;
  /** The id of the request's token (absent for the dashboard's reads): recorded with every change of queue settings. */
  tokenId?: string;
  /** Who asks, in words, for a PR's timeline (the dashboard says so); otherwise `token <tokenId>`. */
  actor?: string;
  engine: Engine;
  /** Where this service is reachable by people (GREENLINE_PUBLIC_URL), for links in responses. */
  publicUrl: string;
}

export const t = initTRPC.context<Context>().create();

/** How long a request waits in all for a queue's lock another transaction holds (the store's lock timeout). */
export const QUEUE_BUSY_WAIT_MS = 5_000;

/**
 * The procedures of every router. An engine error thrown in one reaches the HTTP layer as tRPC wraps it (the error's
 * `cause`), and api/errors.ts answers the catalogue's entry of its code: no tRPC error code stands between the two.
 * A procedure that met a queue's lock held by another transaction (QueueBusyError: PostgreSQL, another process or a
 * stuck session) runs again a little later, without blocking the process meanwhile, for up to QUEUE_BUSY_WAIT_MS;
 * then it answers the 503 the error carries.
 */
export const procedure = t.procedure.use(async ({ next }) => {
  const until = performance.now() + QUEUE_BUSY_WAIT_MS;
  for (let pause = 2; ; pause = Math.min(2 * pause, 50)) {
    const result = await next();
    if (result.ok || queueBusy(result.error) === undefined || performance.now() + pause > until) return result;
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
});
