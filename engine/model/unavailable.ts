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

/**
 * A write found the lock of a scope it needs (a queue) held by another transaction, in this process or another, and
 * did not wait for it: waiting would block the whole process (the store's calls are synchronous), so that a stuck
 * holder would stall every queue. Whoever can wait without blocking (the API's procedures: api/trpc.ts) runs the
 * request again a little later, up to the store's lock timeout; else it is a 503 with retry-after, like a lock timeout.
 */
export class QueueBusyError extends DependencyUnavailableError {
  constructor(
    /** The scope whose lock is held (postgres/queueScope.ts), e.g. `queue:<id>`. */
    readonly scope: string,
    message: string,
  ) {
    super('store', message, 1);
    this.name = 'QueueBusyError';
  }
}

/** The QueueBusyError in `error` or its causes, if any. */
export function queueBusy(error: unknown): QueueBusyError | undefined {
  const down = dependencyDown(error);
  return down instanceof QueueBusyError ? down : undefined;
}

/** The DependencyUnavailableError in `error` or its causes (a tRPC error wraps the engine's), if any. */
export function dependencyDown(error: unknown): DependencyUnavailableError | undefined {
  for (
    let e = error, depth = 0;
    e !== undefined && e !== null && depth < 5;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    if (e instanceof DependencyUnavailableError) return e;
  }
  return undefined;
}
