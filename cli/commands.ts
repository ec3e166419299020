/**
 * The commands of `greenline`, one entry each: its help and how it runs. A command's module is imported when the
 * command runs, never before, so `--version`, `--help` and a light command load nothing of the service (the
 * modules of serve pull in Fastify, LMDB, xstate, octokit; bench/startup.ts measures the difference). A new
 * command is one entry here (and its help in helpTexts.ts).
 */
import { resolve } from 'node:path';
import {
  BACKUP_HELP,
  CHARTS_HELP,
  CLIENT_HELP,
  LOGIN_HELP,
  REPLAY_HELP,
  SERVE_HELP,
  SESSION_HELP,
  SIM_HELP,
  TOKEN_HELP,
  UPLOAD_HELP,
  CONFORMANCE_HELP,
} from './helpTexts.js';
import { UsageError } from './usage.js';

/** The options every command may be given (parseArgs's values). */
export const OPTIONS = {
  org: { type: 'string' },
  scope: { type: 'string' },
  to: { type: 'string' },
  from: { type: 'string' },
  data: { type: 'string' },
  out: { type: 'string' },
  junit: { type: 'string' },
  repo: { type: 'string' },
  sha: { type: 'string' },
  branch: { type: 'string' },
  pr: { type: 'string' },
  variant: { type: 'string' },
  codeowners: { type: 'string' },
  'repo-root': { type: 'string' },
  url: { type: 'string' },
  token: { type: 'string' },
  seed: { type: 'string' },
  priority: { type: 'string' },
  'no-batch': { type: 'boolean' },
  timeline: { type: 'boolean' },
  json: { type: 'boolean' },
  recommend: { type: 'boolean' },
  budget: { type: 'string' },
  'from-queue': { type: 'string' },
  'from-log': { type: 'string' },
  'write-scenario': { type: 'string' },
  runs: { type: 'string' },
  wait: { type: 'string' },
  only: { type: 'string' },
  'all-paths': { type: 'boolean' },
  verbose: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
} as const;

export type OptionValues = {
  [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K]['type'] extends 'boolean' ? boolean : string;
};

export interface CommandContext {
  values: OptionValues;
  /** The positionals after the command's name. */
  rest: string[];
  env: NodeJS.ProcessEnv;
}

export interface Command {
  /** Its lines in --help (commands that share a module share one text; it is shown once). */
  help: string;
  run(context: CommandContext): Promise<number>;
}

/** --data, else $GREENLINE_DATA, else ./.greenline (config.ts says the same for serve). */
async function dataDir({ values, env }: CommandContext): Promise<string> {
  if (values.data !== undefined) return resolve(values.data);
  return (await import('./config.js')).dataDirFrom(env);
}

const storeUrl = (env: NodeJS.ProcessEnv) => (env.GREENLINE_STORE ? { storeUrl: env.GREENLINE_STORE } : {});

/** The fields of `values` that were given, under the names a command's options take. */
function given<T extends Record<string, string | boolean | undefined>>(
  fields: T,
): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}

export const COMMANDS: Record<string, Command> = {
  serve: { help: SERVE_HELP, run: async ({ env }) => (await import('./serve.js')).serve(env) },
  token: {
    help: TOKEN_HELP,
    run: async (context) =>
      (await import('./token.js')).tokenCommand(context.rest[0], {
        org: context.values.org,
        id: context.rest[1],
        ...given({ scope: context.values.scope }),
        ...storeUrl(context.env),
        dataDir: await dataDir(context),
      }),
  },
  backup: {
    help: BACKUP_HELP,
    run: async (context) =>
      (await import('./backup.js')).backupCommand({
        dataDir: await dataDir(context),
        ...given({ to: context.values.to && resolve(context.values.to) }),
        ...storeUrl(context.env),
      }),
  },
  restore: {
    help: BACKUP_HELP,
    run: async (context) =>
      (await import('./backup.js')).restoreCommand({
        dataDir: await dataDir(context),
        ...given({ from: context.values.from && resolve(context.values.from) }),
        ...storeUrl(context.env),
      }),
  },
  migrate: {
    help: BACKUP_HELP,
    run: async ({ values }) =>
      (await import('./backup.js')).migrateCommand(given({ from: values.from && resolve(values.from), to: values.to })),
  },
  session: {
    help: SESSION_HELP,
    run: async (context) =>
      (await import('./session.js')).sessionCommand(context.rest[0], {
        dataDir: await dataDir(context),
        keyFile: context.env.GREENLINE_SESSION_KEY_FILE || undefined,
      }),
  },
  login: { help: LOGIN_HELP, run: async (context) => (await import('./login.js')).loginCommand(context) },
  logout: { help: LOGIN_HELP, run: async (context) => (await import('./login.js')).logoutCommand(context) },
  pr: { help: CLIENT_HELP, run: async (context) => (await import('./clientCommands.js')).prCommand(context) },
  queue: { help: CLIENT_HELP, run: async (context) => (await import('./clientCommands.js')).queueCommand(context) },
  charts: {
    help: CHARTS_HELP,
    run: async ({ values }) => (await import('./charts.js')).chartsCommand(values.out ?? 'charts'),
  },
  upload: {
    help: UPLOAD_HELP,
    run: async ({ values }) => {
      if (values.junit === undefined || values.repo === undefined || values.sha === undefined)
        throw new UsageError('upload needs --junit, --repo and --sha');
      if (values.pr !== undefined && !/^[1-9][0-9]*$/.test(values.pr)) throw new UsageError('--pr must be a PR number');
      const { junit, repo, sha } = values;
      return (await import('./upload.js')).uploadCommand({
        junit,
        repo,
        sha,
        ...given({
          branch: values.branch,
          variant: values.variant,
          codeowners: values.codeowners,
          repoRoot: values['repo-root'],
          url: values.url,
        }),
        ...given({ token: values.token, orgSlug: values.org }),
        ...(values.pr === undefined ? {} : { prNumber: Number(values.pr) }),
      });
    },
  },
  sim: {
    help: SIM_HELP,
    run: async (context) => {
      const { values, rest } = context;
      if (values['from-queue'] !== undefined || values['from-log'] !== undefined) {
        if (rest.length > 0)
          throw new UsageError('sim --from-queue / --from-log take no scenario file (the scenario is fitted)');
        const { fromQueueArgs, fromQueueCommand } = await import('./simFromQueue.js');
        return fromQueueCommand(fromQueueArgs(values, await dataDir(context), context.env));
      }
      if (rest.length !== 1) throw new UsageError('sim needs one scenario file: greenline sim SCENARIO.json');
      const { seed, json, out, recommend, budget } = values;
      return (await import('./sim.js')).simCommand({
        scenario: rest[0] as string,
        ...given({ seed, json, out, recommend, budget }),
      });
    },
  },
  replay: {
    help: REPLAY_HELP,
    run: async ({ values, rest }) => {
      if (rest.length > 1) throw new UsageError('replay takes one event log');
      return (await import('./replay.js')).replayCommand(rest[0], given({ json: values.json }));
    },
  },
  events: {
    help: REPLAY_HELP,
    run: async (context) => {
      const { repo, branch, org, out } = context.values;
      return (await import('./replay.js')).eventsCommand({
        dataDir: await dataDir(context),
        ...given({ repo, branch, org, out }),
      });
    },
  },
  conformance: {
    help: CONFORMANCE_HELP,
    run: async ({ values }) => {
      const { url, token, runs, seed, only, wait, junit } = values;
      return (await import('./conformance.js')).conformanceCommand({
        ...given({ url, token, runs, seed, only, wait, junit }),
        allPaths: values['all-paths'] === true,
        verbose: values.verbose === true,
      });
    },
  },
};
