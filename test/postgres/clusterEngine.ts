/**
 * One process of a cluster on a PostgreSQL database, as `greenline serve` wires it (cli/serve.ts): an engine on its own
 * store, queue leases that adopt, release and refresh queues, and the commits it hears from the others. For the tests
 * of several processes in one test process.
 */
import { QueueLeases } from '../../engine/cluster/leases.js';
import { Engine } from '../../engine/engine.js';
import { openPostgresStore, type PostgresStore } from '../../engine/store/postgresStore.js';

export interface ClusterEngine {
  engine: Engine;
  store: PostgresStore;
  leases: QueueLeases;
  close(): Promise<void>;
}

export async function startClusterEngine(
  url: string,
  name: string,
  onError: (message: string, error: unknown) => void = () => undefined,
): Promise<ClusterEngine> {
  const store = openPostgresStore({ url, applicationName: `cluster-${name}` });
  const leases = new QueueLeases({ url, store, leaseMs: 3000, memberId: name });
  const engine = new Engine(store, { ownership: leases, onError });
  engine.start();
  await leases.start({
    acquired: (queueIds) => engine.adopt(queueIds),
    lost: (queueIds) => engine.release(queueIds),
    refresh: (queueId) => engine.refresh(queueId),
    committed: ({ queueId, changes }) => engine.heard(queueId, changes),
    onError: () => undefined,
  });
  return {
    engine,
    store,
    leases,
    async close() {
      engine.stop();
      await leases.stop();
      await store.close();
    },
  };
}
