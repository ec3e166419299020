/** What the REST facade needs to know of a POST endpoint: its path under /v1 and how it calls the router. */
import type { createCaller } from './router.js';

export type Caller = ReturnType<typeof createCaller>;

export interface Endpoint {
  path: string;
  /** Calls the procedure and shapes the spec's response body. */
  call: (caller: Caller, body: unknown) => Promise<unknown>;
}

export const empty = () => ({});
