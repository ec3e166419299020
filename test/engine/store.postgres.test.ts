/** The store conformance suite on PostgreSQL: a throwaway cluster, a fresh database per test. */
import { afterAll, beforeAll, describe, test } from 'vitest';
import { openPostgresStore } from '../../engine/store/postgresStore.js';
import { describeStoreConformance } from './store.conformance.js';
import { startPostgres, type PgCluster } from '../postgres/cluster.js';

const started = await startPostgres();
const cluster: PgCluster | undefined = 'unavailable' in started ? undefined : started;
if (cluster === undefined) console.warn(`SKIPPED: PostgreSQL store tests: ${(started as { unavailable: string }).unavailable}`);

afterAll(async () => cluster?.stop());

if (cluster !== undefined) {
  describeStoreConformance('postgres', async () => {
    const url = await cluster.createDatabase();
    const store = openPostgresStore({ url });
    return {
      store,
      cleanup: async () => {
        await store.close().catch(() => undefined);
        await cluster.dropDatabase(url);
      },
    };
  });
} else {
  describe.skip('Store conformance: postgres (no PostgreSQL here)', () => test('skipped', () => undefined));
}
