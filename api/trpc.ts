/** The tRPC instance every router of the service builds on: its context and the error-mapping procedure. */
import { initTRPC, TRPCError } from '@trpc/server';
import type { Engine } from '../engine/engine.js';
import { EngineError, type EngineErrorKind } from '../engine/model/errors.js';

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

const TRPC_CODE: Record<EngineErrorKind, TRPCError['code']> = {
  not_found: 'NOT_FOUND',
  conflict: 'CONFLICT',
  invalid: 'BAD_REQUEST',
  unavailable: 'SERVICE_UNAVAILABLE',
};

/** Engine errors become the matching tRPC error (the API answers the catalogue's entry of its code); anything else stays an internal error. */
export const procedure = t.procedure.use(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof EngineError) {
    const cause = result.error.cause;
    throw new TRPCError({ code: TRPC_CODE[cause.kind], message: cause.message, cause });
  }
  return result;
});
