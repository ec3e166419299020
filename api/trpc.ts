/** The tRPC instance every router of the service builds on: its context and its procedure. */
import { initTRPC } from '@trpc/server';
import type { Engine } from '../engine/engine.js';

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

/**
 * The procedures of every router. An engine error thrown in one reaches the HTTP layer as tRPC wraps it (the error's
 * `cause`), and api/errors.ts answers the catalogue's entry of its code: no tRPC error code stands between the two.
 * A procedure that meets a busy queue fails with the QueueBusyError in its cause: the route that called it waits and
 * runs it again (queueBusy.ts), as every route that writes does.
 */
export const procedure = t.procedure;
