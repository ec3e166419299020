/**
 * The record of the responses this test process's API servers sent, checked against the OpenAPI document as they
 * go (see conformance.ts). `attachRecorder` is what the API harness calls on each app it builds.
 */
import type { FastifyInstance } from 'fastify';
import { makeChecker } from './conformance.js';

let checker: ReturnType<typeof makeChecker> | undefined;
const failures: string[] = [];
/** Responses checked, per operation and status. */
export const tally = new Map<string, number>();

export function attachRecorder(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const route = request.routeOptions.url;
    if (route === undefined || typeof payload !== 'string') return payload;
    checker ??= makeChecker();
    const contentType = String(reply.getHeader('content-type') ?? '');
    // The document's paths are relative to /v1, but for the health checks (operations with the root as their server).
    const result = checker.check(
      request.method,
      route.startsWith('/v1/') ? route.slice(3) : route,
      reply.statusCode,
      contentType,
      payload,
    );
    if (result === undefined) return payload;
    tally.set(result.operation, (tally.get(result.operation) ?? 0) + 1);
    if (result.problems.length > 0) {
      failures.push(`${result.operation}: ${result.problems.join('; ')}\n  body: ${payload.slice(0, 500)}`);
    }
    return payload;
  });
}

/** The responses that did not match the document since the last call, and forgets them. */
export function takeFailures(): string[] {
  return failures.splice(0);
}
