/**
 * `greenline sim --from-queue` on a PostgreSQL store (GREENLINE_STORE, as `serve` takes it): a simulated queue in a
 * data folder, migrated into PostgreSQL, fits the same as from the folder. A real server (initdb/pg_ctl as the
 * postgres user); skipped, with the reason, where none can be had.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test, vi } from 'vitest';
import { fromQueueCommand } from '../../cli/simFromQueue.js';
import { copyLmdbIntoPostgres } from '../../engine/store/postgres/backup.js';
import { openLmdbStore } from '../../engine/store/index.js';
import { LMDB_FILE } from '../../engine/store/lmdbStore.js';
import { drawArrivals } from '../../sim/arrivals.js';
import { runQueue, SIM_KEY } from '../../sim/queueRun.js';
import { parseScenario } from '../../sim/scenario.js';
import { captureConsole } from '../console.js';
import { type PgCluster, startPostgres } from '../postgres/cluster.js';

const started = await startPostgres();
const cluster: PgCluster | undefined = 'unavailable' in started ? undefined : started;
if (cluster === undefined)
  console.warn(`SKIPPED: sim --from-queue on PostgreSQL: ${(started as { unavailable: string }).unavailable}`);
let dir: string | undefined;
afterAll(async () => {
  await cluster?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

/** A budget for a stuck test on a loaded machine, not a speed requirement. */
const BUDGET_MS = 600_000;
const QUEUE = `${SIM_KEY.repo.host}/${SIM_KEY.repo.owner}/${SIM_KEY.repo.name}@${SIM_KEY.branch}`;

describe.skipIf(cluster === undefined)('greenline sim --from-queue on PostgreSQL', () => {
  test(
    'a queue migrated from its data folder fits the same from PostgreSQL',
    async () => {
      dir = await mkdtemp(join(tmpdir(), 'greenline-sim-fit-pg-'));
      const data = join(dir, 'data');
      const scenario = parseScenario({
        name: 'pg',
        hours: 12,
        arrivalsPerHour: 6,
        ci: { medianMinutes: 20, p90Minutes: 40 },
        brokenRate: 0.1,
        flakeRate: 0.03,
        configs: [{ name: 'current', concurrency: 3 }],
      });
      const store = openLmdbStore({ dir: data });
      try {
        await runQueue({ scenario, seed: 5, settings: { concurrency: 3 }, arrivals: drawArrivals(scenario, 5), store });
      } finally {
        await store.close();
      }
      const url = await (cluster as PgCluster).createDatabase();
      await copyLmdbIntoPostgres(join(data, LMDB_FILE), url);
      const fromFolder = join(dir, 'folder.json');
      const fromPostgres = join(dir, 'postgres.json');
      captureConsole();
      expect(
        await fromQueueCommand({ fromQueue: QUEUE, org: SIM_KEY.org, dataDir: data, writeScenario: fromFolder }),
      ).toBe(0);
      expect(
        await fromQueueCommand({
          fromQueue: QUEUE,
          org: SIM_KEY.org,
          dataDir: join(dir, 'unused'),
          storeUrl: url,
          writeScenario: fromPostgres,
        }),
      ).toBe(0);
      vi.restoreAllMocks();
      const fitted = JSON.parse(await readFile(fromPostgres, 'utf8')) as { configs: { concurrency: number }[] };
      expect(fitted).toEqual(JSON.parse(await readFile(fromFolder, 'utf8')));
      expect(fitted.configs[0]?.concurrency).toBe(3);
      await (cluster as PgCluster).dropDatabase(url);
    },
    BUDGET_MS,
  );
});
