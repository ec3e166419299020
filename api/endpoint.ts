/**
 * What the REST facade needs to know of a POST endpoint: its path under /v1, its request and response schemas (the
 * OpenAPI document is generated from them), and how it calls the router.
 */
import type { z } from 'zod';
import type { TokenScope } from '../engine/tokens.js';
import type { createCaller } from './router.js';

export type Caller = ReturnType<typeof createCaller>;

export interface Endpoint<Input extends z.ZodType = z.ZodType> {
  path: string;
  /** One line for the OpenAPI document; `ours` marks an endpoint the hosted service does not have. */
  summary: string;
  ours?: boolean;
  /** The least token scope that may call it. */
  scope: TokenScope;
  input: Input;
  output: z.ZodType;
  /**
   * Calls the procedure and shapes the spec's response body. The body is typed as the input schema takes it (the
   * procedure's own), and checked against that schema by the procedure: the facade passes the request's body as it
   * came. A method, so that a list of endpoints of different inputs is a list of `Endpoint`.
   */
  call(caller: Caller, body: z.input<Input>): Promise<unknown>;
}

/** An endpoint whose `call` is type-checked against its input schema. */
export const endpoint = <Input extends z.ZodType>(definition: Endpoint<Input>): Endpoint => definition;

export const empty = () => ({});
