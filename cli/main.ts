/**
 * The `greenline` command line: parses the arguments and runs one command of commands.ts, whose module it imports
 * only then. The only module that imports api/ is serve's.
 */
import { parseArgs } from 'node:util';
import { COMMANDS, OPTIONS } from './commands.js';
import { ENVIRONMENT, HOSTS_HELP } from './environment.js';
import { ConfigError, UsageError } from './usage.js';
import { version } from './version.js';

/** Each command's help once, in the order of COMMANDS. */
const commandHelp = [...new Set(Object.values(COMMANDS).map((command) => command.help))].join('\n');

export const HELP = `greenline — a merge queue and flaky-test service

Usage:
${commandHelp}
  greenline help | --help                this text
  greenline --version                    the version

Options:
  --data DIR     data folder for the token, events, backup, restore and session commands (default: $GREENLINE_DATA, else ./.greenline)

Environment (serve):
${Object.entries(ENVIRONMENT)
  .map(([name, meaning]) => `  ${name.padEnd(33)} ${meaning}`)
  .join('\n')}

${HOSTS_HELP}

When no token is configured and the store holds none, the first start creates a token for organization
"default" and prints it once. The dashboard (http://HOST:PORT/) signs in with such a token once and keeps a session
cookie; it shows only that token's organization. The token commands may run while the service runs: it sees new tokens at once.
`;

/** Errors whose message is the whole story for the person at the terminal (exit 2, with a pointer to --help). */
function isUsageProblem(error: unknown): error is Error {
  if (error instanceof UsageError || error instanceof ConfigError) return true;
  // engine/tokens.ts's, recognised by name so that this module need not load the engine.
  if (error instanceof Error && error.name === 'TokenConfigError') return true;
  return error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS');
}

export async function main(argv: string[]): Promise<number> {
  // Whatever a command writes (the store, keys, backups, exported event logs, repositories, CI logs) is its owner's
  // only; the commands that write secrets also set explicit modes, whatever the umask.
  process.umask(0o077);
  try {
    const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
    const [name, ...rest] = positionals;
    if (values.version) {
      console.log(version());
      return 0;
    }
    if (values.help || name === undefined || name === 'help') {
      console.log(HELP);
      return name === undefined && !values.help ? 1 : 0;
    }
    const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
    if (command === undefined) throw new UsageError(`unknown command "${name}"`);
    return await command.run({ values, rest, env: process.env });
  } catch (error) {
    if (isUsageProblem(error)) {
      console.error(`greenline: ${error.message}\nRun greenline --help for usage.`);
      return 2;
    }
    throw error;
  }
}
