/**
 * What the REST facade needs to know of a POST endpoint: its path under /v1, its request and response schemas (the
 * OpenAPI document is generated from them), and how it calls the router.
 */
import type { z } from 'zod';
import type { TokenScope } from '../engine/tokens.js';
import type { createCaller } from './router.js';

export type Caller = ReturnType<typeof createCaller>;

export interface Endpoint {
  path: string;
  /** One line for the OpenAPI document; `ours` marks an endpoint the hosted service does not have. */
  summary: string;
  ours?: boolean;
  /** The least token scope that may call it. */
  scope: TokenScope;
  input: z.ZodType;
  output: z.ZodType;
  /** Calls the procedure and shapes the spec's response body. */
  call: (caller: Caller, body: unknown) => Promise<unknown>;
}

export const empty = () => ({});
