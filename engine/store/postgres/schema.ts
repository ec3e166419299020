/**
 * The PostgreSQL schema, as versioned migrations applied in order by the service when it opens the store (under an
 * advisory lock, so that several processes starting at once apply each one once). A migration is never edited once
 * released: a change is a new one at the end.
 *
 * greenline_kv holds every collection: (collection, key, value) with the key encoded by keyCodec (its byte order is
 * the documented key order, and bytea compares bytewise) and the value as `json` (kept as written: jsonb would
 * reorder object keys and refuse "\u0000"). Leases, members and the lease-token sequence serve several processes;
 * the scope versions, the processes' caches.
 */
export const MIGRATIONS: readonly string[] = [
  // 1: the store
  `CREATE TABLE greenline_kv (
     coll text NOT NULL,
     k bytea NOT NULL,
     v json NOT NULL,
     PRIMARY KEY (coll, k)
   )`,
  // 2: queue leases with fencing tokens, and the processes sharing the database
  `CREATE SEQUENCE greenline_lease_token;
   CREATE TABLE greenline_leases (
     queue_id text PRIMARY KEY,
     owner text NOT NULL,
     token bigint NOT NULL,
     expires_at timestamptz NOT NULL
   );
   CREATE TABLE greenline_members (
     id text PRIMARY KEY,
     started_at timestamptz NOT NULL DEFAULT now(),
     expires_at timestamptz NOT NULL
   )`,
  // 3: each lock scope's version, one further at each commit that writes it (a process's cache of a scope is current
  // when its version is the database's: postgres/scopeCache.ts), and the refusal a commit's checks raise. A member
  // that bumps the versions says so (`cache_versions`): a process of an earlier build, still running while another
  // applies this migration, writes without bumping them, and no cache is trusted while one is live (statements.ts).
  `CREATE TABLE greenline_scope_versions (
     scope text PRIMARY KEY,
     v bigint NOT NULL
   );
   ALTER TABLE greenline_members ADD COLUMN cache_versions boolean;
   CREATE FUNCTION greenline_raise(code text, message text) RETURNS void LANGUAGE plpgsql AS $$
   BEGIN
     RAISE EXCEPTION USING ERRCODE = code, MESSAGE = message;
   END
   $$`,
];

/** Advisory lock keys (one 64-bit space per database): migrations. */
export const MIGRATION_LOCK = 0x67726e_01;

/**
 * The SQL of a scope's advisory lock key ($1: the scope, queueScope.ts): a write transaction takes the lock of each
 * scope it touches (a queue, a repository's flaky tests…), so that the writes of one scope are serialised while those
 * of others commit at the same time (worker.ts). A 64-bit hash of a name of its own, so it meets no other lock.
 */
export const SCOPE_LOCK_KEY = "hashtextextended('greenline-lock:' || $1, 0)";

/** The channel a process notifies when it committed an input to a queue another process drives. */
export const QUEUE_CHANNEL = 'greenline_queue';

interface Queryable {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

/** Applies the migrations not applied yet; returns how many it applied. */
export async function migrate(client: Queryable): Promise<number> {
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
  try {
    await client.query(`CREATE TABLE IF NOT EXISTS greenline_migrations (
      version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await client.query('SELECT coalesce(max(version), 0) AS v FROM greenline_migrations');
    const current = Number(rows[0]?.v ?? 0);
    if (current > MIGRATIONS.length) {
      throw new Error(
        `the database holds schema version ${current}; this build knows ${MIGRATIONS.length}: upgrade Greenline`,
      );
    }
    for (let version = current + 1; version <= MIGRATIONS.length; version++) {
      await client.query('BEGIN');
      try {
        await client.query(MIGRATIONS[version - 1] as string);
        await client.query('INSERT INTO greenline_migrations (version) VALUES ($1)', [version]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
    }
    return MIGRATIONS.length - current;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
  }
}
