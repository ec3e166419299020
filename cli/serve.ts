/** `greenline serve`: open the store, settle the tokens, serve HTTP until SIGTERM or SIGINT, then stop cleanly. */
import { buildServer } from '../api/server.js';
import { whatIfRunner } from './whatIf.js';
import { version } from './version.js';
import { isoAt, wallClock } from '../engine/runtime/clock.js';
import { hostNamed } from '../hosts/index.js';
import { SimCi } from '../engine/providers/simCi.js';
import { WallScheduler } from '../engine/runtime/scheduler.js';
import { Engine } from '../engine/engine.js';
import { RetentionSweep } from '../engine/retention/sweep.js';
import { openLmdbStore } from '../engine/store/index.js';
import { openPostgresStore } from '../engine/store/postgresStore.js';
import { secureDataDir } from '../engine/store/fileModes.js';
import { KeyFile } from '../engine/store/keyFile.js';
import { StorageFullError, type Store } from '../engine/store/store.js';
import { QueueLeases } from '../engine/cluster/leases.js';
import { syncConfiguredTokens } from '../engine/tokens.js';
import { ConfigError, loadConfig } from './config.js';

export async function serve(env: NodeJS.ProcessEnv): Promise<number> {
  const config = loadConfig(env);
  // The chosen git host (hosts/index.ts), with its settings, which are fields of the configuration.
  const hostPlugin = hostNamed(config.provider);
  if (hostPlugin === undefined) throw new ConfigError(`no git host ${config.provider}`);
  try {
    await hostPlugin.preflight?.(config);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  // Everything the service writes (store, key, repositories, CI logs) is its owner's only, whatever the umask was;
  // what is already there and looser is tightened, saying so.
  process.umask(0o077);
  for (const warning of secureDataDir(config.dataDir)) console.warn(`greenline: ${warning}`);
  const sessionKey = new KeyFile(config.sessionKeyFile);
  sessionKey.key();
  const pgStore = config.postgres === undefined ? undefined : openPostgresStore({ url: config.postgres.url });
  const store =
    pgStore ??
    openLmdbStore({
      dir: config.dataDir,
      groupCommit: config.lmdbSync === 'group',
      batch: config.lmdbSync === 'batch',
      ...(config.maxDbBytes === undefined ? {} : { maxBytes: config.maxDbBytes }),
    });
  // On PostgreSQL several processes share the store: each drives the queues whose leases it holds.
  const leases =
    pgStore === undefined || config.postgres === undefined
      ? undefined
      : new QueueLeases({ url: config.postgres.url, store: pgStore, leaseMs: config.postgres.leaseMs });
  const scheduler = new WallScheduler();
  const simCi = config.simCi === undefined ? undefined : new SimCi(scheduler, config.simCi);
  const host = await hostPlugin.open(config, {
    dataDir: config.dataDir,
    scheduler,
    publicUrl: () => config.publicUrl,
    simCi,
  });
  for (const warning of host.warnings) console.warn(`greenline: ${warning}`);
  const { ci, ciLogs } = host;
  const engine = new Engine(store, {
    scheduler,
    gitHost: host.gitHost,
    sessionKey: () => sessionKey.key(),
    // The sender looks every few seconds for messages it was not told of (flaky-test events, other processes).
    webhooks: { allowPrivate: config.webhooksAllowPrivate, pollMs: 5_000 },
    ...(ci === undefined ? {} : { ci }),
    ...(leases === undefined ? {} : { ownership: leases }),
  });
  const tokens = configuredTokens(store, config.tokens);
  if (tokens.bootstrapToken !== undefined) {
    console.log(
      `Created an API token for organization "default" (shown only this once; only its hash is stored):\n` +
        `  ${tokens.bootstrapToken}\n` +
        `Send it as the x-api-token header. More tokens: greenline token create --org NAME`,
    );
  }
  // The host's inbound routes (webhooks) and what it runs beside them.
  const inbound = host.connect(engine);
  const shownHost = config.host.includes(':') ? `[${config.host}]` : config.host;
  let listeningPort = config.port;
  const app = await buildServer({
    engine,
    // With PORT=0 the port is known once listening: links are made with the one the system chose.
    publicUrl: () => config.publicUrl ?? `http://${shownHost}:${listeningPort}`,
    logger: { level: config.logLevel, stream: process.stderr },
    version: version(),
    timeouts: config.timeouts,
    rateLimit: config.rateLimit,
    // The queue page's "what if": `greenline sim --from-queue --recommend` on this store, in a child process.
    whatIf: whatIfRunner({
      dataDir: config.dataDir,
      ...(config.postgres === undefined ? {} : { storeUrl: config.postgres.url }),
    }),
    ...(ciLogs === undefined ? {} : { ciLogs }),
    routes: inbound.routes,
  });
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  listeningPort = port;
  ciLogs?.setPublicUrl(config.publicUrl ?? `http://${shownHost}:${port}`);
  engine.start();
  // E.g. deliveries accepted and not applied before a stop are applied now.
  inbound.start();
  await leases?.start({
    acquired: (queueIds) => engine.adopt(queueIds),
    lost: (queueIds) => engine.release(queueIds),
    refresh: (queueId) => engine.refresh(queueId),
    committed: ({ queueId, changes }) => engine.heard(queueId, changes),
    onError: (message, error) => console.error(`greenline: ${message}:`, error),
  });
  const retention = new RetentionSweep({
    engine,
    store,
    clock: scheduler,
    settings: config.retention,
    onError: (error) => app.log.error({ err: error }, 'retention sweep failed; it runs again at the next interval'),
    onSwept: (report) => app.log.info({ retention: report }, 'retention sweep done'),
  });
  retention.start();
  const where =
    leases !== undefined
      ? `PostgreSQL store, process ${leases.memberId}, leases of ${leases.leaseMs} ms${ciLogs === undefined ? '' : ', built-in CI'}`
      : host.where;
  console.log(`greenline listening on http://${shownHost}:${port} (data in ${config.dataDir}; ${where})`);
  console.log(`dashboard: http://${shownHost}:${port}/ (sign in with an API token)`);
  const full = engine.storeFull();
  if (full !== undefined)
    console.warn(`greenline: the store is full and serves reads only until there is room (${full}); /readyz says so`);

  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = async (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      console.log(`greenline: ${signal} received; finishing in-flight requests`);
      // At the end of the grace, uploads still running stop (their clients get 503 upload_interrupted, and what was
      // stored of them is completed by the same upload sent again); once they have answered, the connections still
      // open (a client that stalled mid-body) are closed.
      const grace = setTimeout(() => {
        engine.flakyTests.interruptUploads();
        // Their answers are sent once what they stored is durable (group commit), then the connections close.
        void engine.flakyTests
          .settleUploads()
          .then(() => engine.durable().catch(() => undefined))
          .then(() => setImmediate(() => app.server.closeAllConnections()));
      }, config.timeouts.shutdownGraceMs);
      await app.close();
      // Uploads whose clients left are not requests in flight any more, but still end (or are stopped) before the
      // store closes.
      await engine.flakyTests.settleUploads();
      clearTimeout(grace);
      await retention.stop();
      // E.g. a delivery being applied goes back to the inbox for the next start.
      inbound.stop();
      engine.stop();
      await engine.settle();
      // The queues it drove go to the other processes at once, not after the lease time.
      await leases?.stop();
      // E.g. commands still running are ended; they run again at the next start.
      await host.close();
      await store.close();
      console.log('greenline: stopped');
      resolve(0);
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
}

/** Stores the configured tokens; on a full store, those it could not add are named and the start goes on read-only. */
function configuredTokens(store: Store, configured: { org: string; token: string }[]): { bootstrapToken?: string } {
  try {
    return syncConfiguredTokens(store, configured, isoAt(wallClock));
  } catch (error) {
    if (!(error instanceof StorageFullError)) throw error;
    console.warn(
      `greenline: the store is full, so tokens new in GREENLINE_API_TOKENS were not added (removed ones are gone): ${error.message}`,
    );
    return {};
  }
}
