/** The service's configuration, read from the environment and checked before anything starts. */
import { resolve } from 'node:path';
import { z } from 'zod';
import { parseSimCi, type SimCiOptions } from '../engine/providers/simCi.js';
import { parseTokenList } from '../engine/tokens.js';

export const ENVIRONMENT = {
  HOST: 'address to listen on (default 127.0.0.1)',
  PORT: 'port to listen on (default 8080; 0 picks a free one)',
  GREENLINE_DATA: 'data folder; the LMDB store lives in it (default ./.greenline)',
  GREENLINE_API_TOKENS: 'API tokens as "org:token,org2:token2" (default: none; see below)',
  GREENLINE_PUBLIC_URL: 'the address people use to reach this service, for links in responses (default http://HOST:PORT)',
  GREENLINE_PROVIDER: 'the git host: sim (a simulated host; the default)',
  GREENLINE_SIM_CI: 'a synthetic CI that reports on every test run: "1", or "pass=0.9,median=2,p90=4,seed=1" (default: off; statuses come through setCommitStatus)',
  GREENLINE_LOG_LEVEL: 'fatal, error, warn, info, debug, trace or silent (default info); logs go to stderr as JSON',
} as const;

const DEFAULT_DATA_DIR = './.greenline';

const EnvSchema = z.object({
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  GREENLINE_DATA: z.string().min(1).default(DEFAULT_DATA_DIR),
  GREENLINE_API_TOKENS: z.string().default(''),
  GREENLINE_PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  GREENLINE_PROVIDER: z.enum(['sim']).default('sim'),
  GREENLINE_SIM_CI: z.string().optional(),
  GREENLINE_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export interface ServiceConfig {
  host: string;
  port: number;
  dataDir: string;
  tokens: { org: string; token: string }[];
  logLevel: string;
  provider: 'sim';
  /** The synthetic CI's settings, when it is on. */
  simCi?: SimCiOptions;
  /** Absent when not configured: serve derives it from the address it listens on. */
  publicUrl?: string;
}

export class ConfigError extends Error {}

/** A command line that does not say what to do. */
export class UsageError extends Error {}

export function dataDirFrom(env: NodeJS.ProcessEnv): string {
  return resolve(env.GREENLINE_DATA || DEFAULT_DATA_DIR);
}

export function loadConfig(env: NodeJS.ProcessEnv): ServiceConfig {
  const present = Object.fromEntries(Object.keys(ENVIRONMENT).flatMap((name) => (env[name] ? [[name, env[name]]] : [])));
  const parsed = EnvSchema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new ConfigError(`invalid environment: ${problems}`);
  }
  const values = parsed.data;
  let simCi: SimCiOptions | undefined;
  if (values.GREENLINE_SIM_CI !== undefined && values.GREENLINE_SIM_CI !== '0') {
    try {
      simCi = parseSimCi(values.GREENLINE_SIM_CI);
    } catch (error) {
      throw new ConfigError(`invalid environment: GREENLINE_SIM_CI: ${(error as Error).message}`);
    }
  }
  return {
    provider: values.GREENLINE_PROVIDER,
    ...(simCi === undefined ? {} : { simCi }),
    host: values.HOST,
    port: values.PORT,
    dataDir: resolve(values.GREENLINE_DATA),
    tokens: parseTokenList(values.GREENLINE_API_TOKENS),
    logLevel: values.GREENLINE_LOG_LEVEL,
    ...(values.GREENLINE_PUBLIC_URL === undefined ? {} : { publicUrl: values.GREENLINE_PUBLIC_URL }),
  };
}
