/** The `greenline` command line: the only module that imports api/ (through serve). */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { TokenConfigError } from '../engine/tokens.js';
import { ConfigError, dataDirFrom, ENVIRONMENT, UsageError } from './config.js';
import { CHARTS_HELP, chartsCommand } from './charts.js';
import { CONFORMANCE_HELP, conformanceCommand } from './conformance.js';
import { REPLAY_HELP, eventsCommand, replayCommand } from './replay.js';
import { serve } from './serve.js';
import { SIM_HELP, simCommand } from './sim.js';
import { UPLOAD_HELP, uploadCommand } from './upload.js';
import { tokenCommand } from './token.js';
import { BACKUP_HELP, backupCommand, migrateCommand, restoreCommand } from './backup.js';
import { SESSION_HELP, sessionCommand } from './session.js';
import { version } from './version.js';

export const HELP = `greenline — a merge queue and flaky-test service

Usage:
  greenline serve                        run the service and its web dashboard at / (what npm start runs)
  greenline token create --org NAME [--scope read|write|admin]
                                         add an API token for an organization; prints the token once. read: queues,
                                         PRs, runs, metrics, flaky-test listings; write: also PR operations, statuses,
                                         impacted targets, uploads; admin (the default): also queue create, update,
                                         delete. Beyond its scope a call is 403 insufficient_scope
  greenline token list                   list tokens: id, organization, source, creation time, scope (never the token)
  greenline token revoke ID              remove a token
${BACKUP_HELP}
${SESSION_HELP}
${CHARTS_HELP}
${UPLOAD_HELP}
${SIM_HELP}
${REPLAY_HELP}
${CONFORMANCE_HELP}
  greenline help | --help                this text
  greenline --version                    the version

Options:
  --data DIR     data folder for the token, events, backup, restore and session commands (default: $GREENLINE_DATA, else ./.greenline)

Environment (serve):
${Object.entries(ENVIRONMENT)
  .map(([name, meaning]) => `  ${name.padEnd(33)} ${meaning}`)
  .join('\n')}

GitHub mode (GREENLINE_PROVIDER=github): Greenline is a GitHub App; deliveries arrive at POST /github/webhooks, PRs
are queued with a comment "/greenline merge" (or the API). The App manifest and the setup: docs/github.md.

When no token is configured and the store holds none, the first start creates a token for organization
"default" and prints it once. The dashboard (http://HOST:PORT/) signs in with such a token once and keeps a session
cookie; it shows only that token's organization. The token commands may run while the service runs: it sees new tokens at once.
`;

export async function main(argv: string[]): Promise<number> {
  // Whatever a command writes (the store, keys, backups, exported event logs, repositories, CI logs) is its owner's
  // only; the commands that write secrets also set explicit modes, whatever the umask.
  process.umask(0o077);
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
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
        json: { type: 'boolean' },
        recommend: { type: 'boolean' },
        budget: { type: 'string' },
        runs: { type: 'string' },
        wait: { type: 'string' },
        only: { type: 'string' },
        'all-paths': { type: 'boolean' },
        verbose: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean' },
      },
    });
    const [command, ...rest] = positionals;
    if (values.version) {
      console.log(version());
      return 0;
    }
    if (values.help || command === undefined || command === 'help') {
      console.log(HELP);
      return command === undefined && !values.help ? 1 : 0;
    }
    switch (command) {
      case 'serve':
        return await serve(process.env);
      case 'charts':
        return await chartsCommand(values.out ?? 'charts');
      case 'upload': {
        if (values.junit === undefined || values.repo === undefined || values.sha === undefined) {
          throw new UsageError('upload needs --junit, --repo and --sha');
        }
        if (values.pr !== undefined && !/^[1-9][0-9]*$/.test(values.pr)) throw new UsageError('--pr must be a PR number');
        return await uploadCommand({
          junit: values.junit,
          repo: values.repo,
          sha: values.sha,
          ...(values.branch === undefined ? {} : { branch: values.branch }),
          ...(values.pr === undefined ? {} : { prNumber: Number(values.pr) }),
          ...(values.variant === undefined ? {} : { variant: values.variant }),
          ...(values.codeowners === undefined ? {} : { codeowners: values.codeowners }),
          ...(values['repo-root'] === undefined ? {} : { repoRoot: values['repo-root'] }),
          ...(values.url === undefined ? {} : { url: values.url }),
          ...(values.token === undefined ? {} : { token: values.token }),
          ...(values.org === undefined ? {} : { orgSlug: values.org }),
        });
      }
      case 'sim': {
        if (rest.length !== 1) throw new UsageError('sim needs one scenario file: greenline sim SCENARIO.json');
        return await simCommand({
          scenario: rest[0] as string,
          ...(values.seed === undefined ? {} : { seed: values.seed }),
          ...(values.json === undefined ? {} : { json: values.json }),
          ...(values.out === undefined ? {} : { out: values.out }),
          ...(values.recommend === undefined ? {} : { recommend: values.recommend }),
          ...(values.budget === undefined ? {} : { budget: values.budget }),
        });
      }
      case 'conformance':
        return await conformanceCommand({
          ...(values.url === undefined ? {} : { url: values.url }),
          ...(values.token === undefined ? {} : { token: values.token }),
          ...(values.runs === undefined ? {} : { runs: values.runs }),
          ...(values.seed === undefined ? {} : { seed: values.seed }),
          ...(values.only === undefined ? {} : { only: values.only }),
          ...(values.wait === undefined ? {} : { wait: values.wait }),
          ...(values.junit === undefined ? {} : { junit: values.junit }),
          allPaths: values['all-paths'] === true,
          verbose: values.verbose === true,
        });
      case 'replay':
        if (rest.length > 1) throw new UsageError('replay takes one event log');
        return await replayCommand(rest[0], values.json === undefined ? {} : { json: values.json });
      case 'events':
        return await eventsCommand({
          dataDir: values.data === undefined ? dataDirFrom(process.env) : resolve(values.data),
          ...(values.repo === undefined ? {} : { repo: values.repo }),
          ...(values.branch === undefined ? {} : { branch: values.branch }),
          ...(values.org === undefined ? {} : { org: values.org }),
          ...(values.out === undefined ? {} : { out: values.out }),
        });
      case 'backup':
        return await backupCommand({
          dataDir: values.data === undefined ? dataDirFrom(process.env) : resolve(values.data),
          ...(values.to === undefined ? {} : { to: resolve(values.to) }),
          ...(process.env.GREENLINE_STORE ? { storeUrl: process.env.GREENLINE_STORE } : {}),
        });
      case 'restore':
        return await restoreCommand({
          dataDir: values.data === undefined ? dataDirFrom(process.env) : resolve(values.data),
          ...(values.from === undefined ? {} : { from: resolve(values.from) }),
          ...(process.env.GREENLINE_STORE ? { storeUrl: process.env.GREENLINE_STORE } : {}),
        });
      case 'migrate':
        return await migrateCommand({
          ...(values.from === undefined ? {} : { from: resolve(values.from) }),
          ...(values.to === undefined ? {} : { to: values.to }),
        });
      case 'session':
        return sessionCommand(rest[0], {
          dataDir: values.data === undefined ? dataDirFrom(process.env) : resolve(values.data),
          keyFile: process.env.GREENLINE_SESSION_KEY_FILE || undefined,
        });
      case 'token':
        return await tokenCommand(rest[0], {
          org: values.org,
          id: rest[1],
          ...(values.scope === undefined ? {} : { scope: values.scope }),
          ...(process.env.GREENLINE_STORE ? { storeUrl: process.env.GREENLINE_STORE } : {}),
          dataDir: values.data === undefined ? dataDirFrom(process.env) : resolve(values.data),
        });
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError || error instanceof TokenConfigError) {
      console.error(`greenline: ${error.message}\nRun greenline --help for usage.`);
      return 2;
    }
    if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) {
      console.error(`greenline: ${error.message}\nRun greenline --help for usage.`);
      return 2;
    }
    throw error;
  }
}
