/** A PostgreSQL store on a fresh database of a test cluster, and its clean-up (closes the store, drops the database). */
import { openPostgresStore } from '../../engine/store/postgresStore.js';
import type { Store } from '../../engine/store/store.js';
import type { PgCluster } from './cluster.js';

export interface OpenedStore {
  store: Store;
  cleanup: () => Promise<void>;
}

export async function postgresStore(cluster: PgCluster): Promise<OpenedStore> {
  const url = await cluster.createDatabase();
  const store = openPostgresStore({ url });
  return {
    store,
    cleanup: async () => {
      await store.close().catch(() => undefined);
      await cluster.dropDatabase(url);
    },
  };
}
