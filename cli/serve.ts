/** `greenline serve`: open the store, settle the tokens, serve HTTP until SIGTERM or SIGINT, then stop cleanly. */
import { buildServer } from '../api/server.js';
import { isoAt, wallClock } from '../engine/clock.js';
import { SimCi } from '../engine/providers/simCi.js';
import { SimGitHost } from '../engine/providers/simGitHost.js';
import { WallScheduler } from '../engine/scheduler.js';
import { Engine } from '../engine/engine.js';
import { openLmdbStore } from '../engine/store/index.js';
import { syncConfiguredTokens } from '../engine/tokens.js';
import { loadConfig } from './config.js';

export async function serve(env: NodeJS.ProcessEnv): Promise<number> {
  const config = loadConfig(env);
  const store = openLmdbStore({ dir: config.dataDir });
  const scheduler = new WallScheduler();
  const engine = new Engine(store, {
    scheduler,
    gitHost: new SimGitHost(),
    ...(config.simCi === undefined ? {} : { ci: new SimCi(scheduler, config.simCi) }),
  });
  const tokens = syncConfiguredTokens(store, config.tokens, isoAt(wallClock));
  if (tokens.bootstrapToken !== undefined) {
    console.log(
      `Created an API token for organization "default" (shown only this once; only its hash is stored):\n` +
        `  ${tokens.bootstrapToken}\n` +
        `Send it as the x-api-token header. More tokens: greenline token create --org NAME`,
    );
  }
  const shownHost = config.host.includes(':') ? `[${config.host}]` : config.host;
  const app = await buildServer({
    engine,
    publicUrl: config.publicUrl ?? `http://${shownHost}:${config.port}`,
    logger: { level: config.logLevel, stream: process.stderr },
  });
  await app.listen({ host: config.host, port: config.port });
  engine.start();
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  console.log(`greenline listening on http://${shownHost}:${port} (data in ${config.dataDir})`);

  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = async (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      console.log(`greenline: ${signal} received; finishing in-flight requests`);
      await app.close();
      engine.stop();
      await engine.settle();
      await store.close();
      console.log('greenline: stopped');
      resolve(0);
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
}
