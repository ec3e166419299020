/**
 * How the PostgreSQL store's worker tells a database that is not there now from a request that is wrong (worker.ts):
 * the first are answered "unavailable" (a 503 with retry-after) and their connection is dropped.
 */

/**
 * Errors that say the database is not there now, rather than that a request is wrong: it cannot be reached, it is
 * shutting down or starting, it has no connection left, or a statement, a lock wait or a connection attempt ran
 * past its bound. The store answers them as "unavailable" (a 503 with retry-after), and the connection is dropped.
 */
const UNAVAILABLE_CODES = new Set([
  '57P01', // admin_shutdown (pg_ctl stop, or the session was terminated)
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, shutting down, in recovery)
  '53300', // too_many_connections
  '57014', // query_canceled: statement_timeout
  '55P03', // lock_not_available: lock_timeout
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
const UNAVAILABLE_MESSAGES =
  /Connection terminated|connection timeout|timeout expired|Query read timeout|not queryable|connection to PostgreSQL was lost|Connection ended/i;

export function isUnavailable(error: unknown): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) return true;
  return typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message);
}
