/** A renewal of the queue leases a process holds, with its heartbeat (leases.ts), as one statement. */
import type pg from 'pg';

export interface Held {
  token: string;
  /** performance.now() until which the lease is surely still this process's. */
  validUntil: number;
}

/**
 * Renews the leases `held` and heartbeats the member; returns the queues the database still has as this member's
 * with the tokens held. A lease counts from when the statement was sent (a busy event loop that reads the answer
 * late shortens what is left of it, never lengthens it), and only grows.
 */
export async function renewLeases(
  pool: pg.Pool,
  memberId: string,
  leaseMs: number,
  held: Map<string, Held>,
): Promise<Set<string>> {
  const ttl = `${leaseMs} milliseconds`;
  const sent = performance.now();
  const validUntil = sent + leaseMs * 0.8;
  // The heartbeat goes with it: a process that dies stops counting among the live ones (the fair share) no later
  // than its leases run out, so the others take its queues at their first round after that, not one round later.
  // Only the leases this process counts as its own: a row it does not (any more) runs out and is taken again.
  const renewed = await pool.query<{ queue_id: string; token: string }>(
    `WITH beat AS (
       INSERT INTO greenline_members (id, expires_at, cache_versions) VALUES ($1, clock_timestamp() + $2::interval, true)
       ON CONFLICT (id) DO UPDATE SET expires_at = EXCLUDED.expires_at, cache_versions = true)
     UPDATE greenline_leases SET expires_at = clock_timestamp() + $2::interval
     WHERE owner = $1 AND queue_id = ANY($3) AND expires_at > clock_timestamp() RETURNING queue_id, token::text AS token`,
    [memberId, ttl, [...held.keys()]],
  );
  const kept = new Set<string>();
  for (const { queue_id: queueId, token } of renewed.rows) {
    const lease = held.get(queueId);
    if (lease?.token === token) {
      lease.validUntil = Math.max(lease.validUntil, validUntil);
      kept.add(queueId);
    }
  }
  return kept;
}
