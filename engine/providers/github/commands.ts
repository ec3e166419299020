/**
 * The commands people write in a pull request's comments: `/greenline merge [--priority P] [--no-batch]` submits
 * the PR, `/greenline cancel` takes it out of the queue. Pure parsing; the webhook receiver acts on the result.
 */
export type Command =
  | { kind: 'merge'; priority?: number | string; noBatch: boolean }
  | { kind: 'cancel' }
  | { kind: 'invalid'; message: string };

const PREFIX = '/greenline';
const PRIORITY_NAMES = ['urgent', 'high', 'medium', 'low'];

/** A priority as the API takes it: an integer 0–255 (0 highest) or a name. */
function priorityOf(text: string): number | string | undefined {
  if (/^\d{1,3}$/.test(text) && Number(text) <= 255) return Number(text);
  const name = text.toLowerCase();
  return PRIORITY_NAMES.includes(name) ? name : undefined;
}

/** The command of a comment (its first line starting with /greenline), or undefined when it holds none. */
export function parseCommand(body: string): Command | undefined {
  const line = body
    .split(/\r?\n/)
    .map((text) => text.trim())
    .find((text) => text === PREFIX || text.startsWith(`${PREFIX} `));
  if (line === undefined) return undefined;
  const [verb, ...args] = line
    .slice(PREFIX.length)
    .trim()
    .split(/\s+/)
    .filter((word) => word !== '');
  if (verb === 'cancel') {
    return args.length === 0
      ? { kind: 'cancel' }
      : { kind: 'invalid', message: `/greenline cancel takes no options (got ${args.join(' ')})` };
  }
  if (verb !== 'merge') {
    return {
      kind: 'invalid',
      message: `unknown command "${verb ?? ''}": use /greenline merge [--priority P] [--no-batch] or /greenline cancel`,
    };
  }
  const command: { kind: 'merge'; priority?: number | string; noBatch: boolean } = { kind: 'merge', noBatch: false };
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (arg === '--no-batch') {
      command.noBatch = true;
    } else if (arg === '--priority' || arg.startsWith('--priority=')) {
      const text = arg === '--priority' ? (args[++index] ?? '') : arg.slice('--priority='.length);
      const priority = priorityOf(text);
      if (priority === undefined)
        return { kind: 'invalid', message: `--priority takes 0 to 255 or urgent, high, medium, low (got "${text}")` };
      command.priority = priority;
    } else
      return { kind: 'invalid', message: `unknown option "${arg}": use /greenline merge [--priority P] [--no-batch]` };
  }
  return command;
}
