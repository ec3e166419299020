/**
 * Values written into SQL text, for the worker's statements (statements.ts): a request's statements go to PostgreSQL
 * as one simple-protocol query (one round trip), which takes no parameters. Every value is a literal made here, safe
 * whatever it holds and whatever the server's standard_conforming_strings: text as an E'' string with its quotes and
 * backslashes doubled, bytes as hex decoded by the server.
 */
import pg from 'pg';

/** The worker's code for a write refused because this process no longer holds a queue's lease (LeaseLostError). */
export const LEASE_LOST = 'GL003';

/**
 * A text literal, escaped by pg's own `escapeLiteral` (libpq's PQescapeLiteral, ported): quotes doubled, and an E''
 * string with its backslashes doubled where there are any. (Greenline's text holds no NUL: keys and JSON escape it,
 * and PostgreSQL text cannot hold one.)
 */
export function text(value: string): string {
  return pg.escapeLiteral(value);
}

/** A bytea literal. */
export function bytea(value: Uint8Array): string {
  return `decode('${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}', 'hex')`;
}

/** An array literal of literals of one type. */
export function array(literals: readonly string[], type: string): string {
  return literals.length === 0 ? `'{}'::${type}[]` : `ARRAY[${literals.join(', ')}]::${type}[]`;
}

/**
 * The advisory lock key of a scope (queueScope.ts): a 64-bit hash of a name of its own, so it meets no other lock.
 * The same key as schema.ts's SCOPE_LOCK_KEY.
 */
export function lockKey(scope: string): string {
  return `hashtextextended('greenline-lock:' || ${text(scope)}, 0)`;
}
