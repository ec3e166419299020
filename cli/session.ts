/** `greenline session rotate-key`: a new dashboard session key; every session signed with the old one ends. */
import { join, resolve } from 'node:path';
import { rotateKeyFile, SESSION_KEY_FILE } from '../engine/store/keyFile.js';
import { UsageError } from './config.js';

export { SESSION_HELP } from './helpTexts.js';

export function sessionCommand(
  action: string | undefined,
  options: { dataDir: string; keyFile: string | undefined },
): number {
  if (action !== 'rotate-key') throw new UsageError('session takes one action: rotate-key');
  process.umask(0o077);
  const file = options.keyFile === undefined ? join(options.dataDir, SESSION_KEY_FILE) : resolve(options.keyFile);
  rotateKeyFile(file);
  console.error(
    `wrote a new session key to ${file}: every dashboard session signed with the old key is refused from now on`,
  );
  return 0;
}
