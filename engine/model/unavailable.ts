/**
 * A dependency the service needs for a request is down or too slow: the store's database (unreachable, restarting,
 * a statement or a lock wait over its bound), or the git host or CI. Not a bug and not the client's fault: the API
 * answers 503 with `retry-after`, and the work waiting in the outbox is retried with its backoff. Each caller bounds
 * its wait (connection, statement and lock timeouts), so this is raised well within a client's patience.
 */
export type Dependency = 'store' | 'git host' | 'CI';

/** Seconds a client is told to wait before trying again (`retry-after`) unless the error says otherwise. */
export const DEFAULT_RETRY_AFTER_S = 5;

export class DependencyUnavailableError extends Error {
  constructor(
    readonly dependency: Dependency,
    message: string,
    readonly retryAfterSeconds = DEFAULT_RETRY_AFTER_S,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DependencyUnavailableError';
  }
}

/** The DependencyUnavailableError in `error` or its causes (a tRPC error wraps the engine's), if any. */
export function dependencyDown(error: unknown): DependencyUnavailableError | undefined {
  for (let e = error, depth = 0; e !== undefined && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof DependencyUnavailableError) return e;
  }
  return undefined;
}
