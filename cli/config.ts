/** The service's configuration, read from the environment and checked before anything starts. */
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { HOSTS, hostNamed, type HostSettings } from '../hosts/index.js';
import { parseSimCi, type SimCiOptions } from '../engine/providers/simCi.js';
import { parseTokenList } from '../engine/tokens.js';
import { SESSION_KEY_FILE } from '../engine/store/keyFile.js';
import { DEFAULT_RETENTION, type RetentionSettings } from '../engine/retention/settings.js';
import { describeIssues } from '../engine/validationMessages.js';
import { ENVIRONMENT } from './environment.js';
import { ConfigError } from './usage.js';

export { ENVIRONMENT } from './environment.js';
export { ConfigError, UsageError } from './usage.js';

const DEFAULT_DATA_DIR = './.greenline';

/** A whole number of seconds, 1 to a day. */
function seconds(fallback: number) {
  return z.coerce.number().int('must be a whole number of seconds').min(1).max(86_400).default(fallback);
}

const EnvSchema = z.object({
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  GREENLINE_DATA: z.string().min(1).default(DEFAULT_DATA_DIR),
  GREENLINE_SESSION_KEY_FILE: z.string().min(1).optional(),
  GREENLINE_STORE: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  GREENLINE_LEASE_MS: z.coerce.number().int().min(300).max(600_000).default(5000),
  GREENLINE_API_TOKENS: z.string().default(''),
  GREENLINE_PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  GREENLINE_PROVIDER: z.enum(HOSTS.map((host) => host.name) as [string, ...string[]]).default(HOSTS[0].name),
  GREENLINE_SIM_CI: z.string().optional(),
  GREENLINE_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  GREENLINE_REQUEST_TIMEOUT: seconds(60),
  GREENLINE_IDLE_TIMEOUT: seconds(120),
  GREENLINE_KEEP_ALIVE_TIMEOUT: seconds(5),
  GREENLINE_SHUTDOWN_GRACE: seconds(10),
  GREENLINE_MAX_DB_SIZE: z
    .string()
    .regex(/^[0-9]{1,15}[KMG]?$/i, 'must be a number of bytes, optionally with K, M or G (e.g. 20G)')
    .transform(
      (text) => Number.parseInt(text, 10) * ({ k: 2 ** 10, m: 2 ** 20, g: 2 ** 30 }[text.slice(-1).toLowerCase()] ?? 1),
    )
    .refine((bytes) => bytes >= 64 * 1024, 'must be at least 64K')
    .optional(),
  GREENLINE_LMDB_SYNC: z.enum(['batch', 'group', 'each']).default('batch'),
  GREENLINE_RATE_LIMIT: z.coerce.number().int().min(1).max(10_000_000).default(6000),
  GREENLINE_SCRAPE_RATE_LIMIT: z.coerce.number().int().min(1).max(10_000_000).default(600),
  GREENLINE_RETAIN_PRS_DAYS: days(DEFAULT_RETENTION.prsDays),
  GREENLINE_RETAIN_EVENTS_DAYS: days(DEFAULT_RETENTION.eventsDays),
  GREENLINE_RETAIN_RESULTS_DAYS: days(DEFAULT_RETENTION.testResultsDays),
  GREENLINE_RETAIN_DELIVERIES_DAYS: days(DEFAULT_RETENTION.deliveriesDays),
  GREENLINE_WEBHOOKS_ALLOW_PRIVATE: z.enum(['0', '1']).default('0'),
  GREENLINE_RETENTION_SWEEP: z.coerce
    .number()
    .int('must be a whole number of seconds')
    .min(0)
    .max(604_800)
    .default(DEFAULT_RETENTION.sweepSeconds),
});

/** With each host's own variables, checked whichever host is chosen (hosts/<host>/host.ts). */
const FullEnvSchema = EnvSchema.extend(Object.assign({}, ...HOSTS.map((host) => host.schema(z))) as z.ZodRawShape);

/** A whole number of days, 0 (forever) to 100 years. */
function days(fallback: number) {
  return z.coerce.number().int('must be a whole number of days').min(0).max(36_500).default(fallback);
}

export interface ServiceConfig extends HostSettings {
  host: string;
  port: number;
  dataDir: string;
  /** GREENLINE_SESSION_KEY_FILE: the file holding the key dashboard sessions are signed with. */
  sessionKeyFile: string;
  /** GREENLINE_STORE: the PostgreSQL database, when the store is kept there (else LMDB in dataDir). */
  postgres?: { url: string; leaseMs: number };
  tokens: { org: string; token: string }[];
  logLevel: string;
  /** GREENLINE_PROVIDER: the git host (hosts/index.ts); its settings are fields of this configuration. */
  provider: string;
  /** The synthetic CI's settings, when it is on. */
  simCi?: SimCiOptions;
  /** Absent when not configured: serve derives it from the address it listens on. */
  publicUrl?: string;
  /** Milliseconds: a whole request, a silent connection, an idle keep-alive connection, SIGTERM's wait. */
  timeouts: { requestMs: number; idleMs: number; keepAliveMs: number; shutdownGraceMs: number };
  /** GREENLINE_MAX_DB_SIZE in bytes, when set. */
  maxDbBytes?: number;
  /**
   * GREENLINE_LMDB_SYNC: requests' writes in lmdb-js's batches, synced off the event loop (store/lmdbBatched.ts); LMDB
   * commits synced in groups off the event loop (store/groupCommit.ts); or each alone, on the event loop.
   */
  lmdbSync: 'batch' | 'group' | 'each';
  /** Requests per minute per token: the API and dashboard, and the scrape and health checks. */
  rateLimit: { perToken: number; scrapePerToken: number };
  /** How long what ended is kept, and how often the sweep runs (engine/retention). */
  retention: RetentionSettings;
  /** GREENLINE_WEBHOOKS_ALLOW_PRIVATE=1: webhook endpoints may be loopback or private addresses (tests, a network that means it). */
  webhooksAllowPrivate: boolean;
}

export function dataDirFrom(env: NodeJS.ProcessEnv): string {
  return resolve(env.GREENLINE_DATA || DEFAULT_DATA_DIR);
}

export function loadConfig(env: NodeJS.ProcessEnv): ServiceConfig {
  const present = Object.fromEntries(
    Object.keys(ENVIRONMENT).flatMap((name) => (env[name] ? [[name, env[name]]] : [])),
  );
  const parsed = FullEnvSchema.safeParse(present);
  if (!parsed.success) {
    const problems = describeIssues(parsed.error.issues);
    throw new ConfigError(`invalid environment: ${problems}`);
  }
  const values = parsed.data as z.infer<typeof EnvSchema> & Record<string, unknown>;
  let simCi: SimCiOptions | undefined;
  if (values.GREENLINE_SIM_CI !== undefined && values.GREENLINE_SIM_CI !== '0') {
    try {
      simCi = parseSimCi(values.GREENLINE_SIM_CI);
    } catch (error) {
      throw new ConfigError(`invalid environment: GREENLINE_SIM_CI: ${(error as Error).message}`);
    }
  }
  const host = hostNamed(values.GREENLINE_PROVIDER);
  if (host === undefined)
    throw new ConfigError(`invalid environment: GREENLINE_PROVIDER: no host ${values.GREENLINE_PROVIDER}`);
  let settings: HostSettings;
  try {
    settings = host.configure(values, { simCi: simCi !== undefined });
  } catch (error) {
    throw new ConfigError(`invalid environment: ${(error as Error).message}`);
  }
  // A variable of another host that means nothing without it stops the start rather than being ignored.
  for (const other of HOSTS) {
    if (other === host) continue;
    for (const [name, why] of Object.entries(other.onlyWith ?? {})) {
      const value = values[name];
      if (value !== undefined && value !== '0')
        throw new ConfigError(`invalid environment: ${name} needs GREENLINE_PROVIDER=${other.name} (${why})`);
    }
  }
  return {
    provider: values.GREENLINE_PROVIDER,
    ...settings,
    ...(simCi === undefined ? {} : { simCi }),
    host: values.HOST,
    port: values.PORT,
    dataDir: resolve(values.GREENLINE_DATA),
    sessionKeyFile: resolve(values.GREENLINE_SESSION_KEY_FILE ?? join(values.GREENLINE_DATA, SESSION_KEY_FILE)),
    ...(values.GREENLINE_STORE === undefined
      ? {}
      : { postgres: { url: values.GREENLINE_STORE, leaseMs: values.GREENLINE_LEASE_MS } }),
    tokens: parseTokenList(values.GREENLINE_API_TOKENS),
    logLevel: values.GREENLINE_LOG_LEVEL,
    ...(values.GREENLINE_MAX_DB_SIZE === undefined ? {} : { maxDbBytes: values.GREENLINE_MAX_DB_SIZE }),
    lmdbSync: values.GREENLINE_LMDB_SYNC,
    webhooksAllowPrivate: values.GREENLINE_WEBHOOKS_ALLOW_PRIVATE === '1',
    rateLimit: { perToken: values.GREENLINE_RATE_LIMIT, scrapePerToken: values.GREENLINE_SCRAPE_RATE_LIMIT },
    retention: {
      ...DEFAULT_RETENTION,
      prsDays: values.GREENLINE_RETAIN_PRS_DAYS,
      eventsDays: values.GREENLINE_RETAIN_EVENTS_DAYS,
      testResultsDays: values.GREENLINE_RETAIN_RESULTS_DAYS,
      deliveriesDays: values.GREENLINE_RETAIN_DELIVERIES_DAYS,
      sweepSeconds: values.GREENLINE_RETENTION_SWEEP,
    },
    timeouts: {
      requestMs: values.GREENLINE_REQUEST_TIMEOUT * 1000,
      idleMs: values.GREENLINE_IDLE_TIMEOUT * 1000,
      keepAliveMs: values.GREENLINE_KEEP_ALIVE_TIMEOUT * 1000,
      shutdownGraceMs: values.GREENLINE_SHUTDOWN_GRACE * 1000,
    },
    ...(values.GREENLINE_PUBLIC_URL === undefined ? {} : { publicUrl: values.GREENLINE_PUBLIC_URL }),
  };
}
