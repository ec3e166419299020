/**
 * The modes of what Greenline keeps on disk: the data folder is its owner's only (0700), and so is every file and
 * folder directly in it (0600 / 0700: the store, its lock file, the session key, repositories, CI logs). Modes are
 * set explicitly, whatever the umask; a start tightens what is looser and says so.
 */
import fs from 'node:fs';
import path from 'node:path';

export const PRIVATE_DIR_MODE = 0o700;
const OTHERS = 0o077;

/** Removes group and other permissions from `target`; the warning to print when there were any. */
function tighten(target: string, stat: fs.Stats): string | undefined {
  const mode = stat.mode & 0o777;
  if ((mode & OTHERS) === 0) return undefined;
  const tightened = mode & ~OTHERS;
  fs.chmodSync(target, tightened);
  return `${target} was mode ${mode.toString(8).padStart(4, '0')}, readable by other users; now ${tightened.toString(8).padStart(4, '0')}`;
}

/**
 * Creates the data folder 0700 if missing; else tightens it and the entries directly in it (not deeper: the folder
 * alone keeps other users out of what is below). Returns a warning for each mode it had to tighten.
 */
export function secureDataDir(dir: string): string[] {
  if (!fs.existsSync(dir)) {
    fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    fs.chmodSync(dir, PRIVATE_DIR_MODE);
    return [];
  }
  const warnings: string[] = [];
  const own = tighten(dir, fs.statSync(dir));
  if (own !== undefined) warnings.push(own);
  for (const name of fs.readdirSync(dir)) {
    const entry = path.join(dir, name);
    const stat = fs.lstatSync(entry);
    if (!stat.isFile() && !stat.isDirectory()) continue;
    const warning = tighten(entry, stat);
    if (warning !== undefined) warnings.push(warning);
  }
  return warnings;
}

/** A warning when a file the service reads a secret from (one it does not own the making of) is open to others. */
export function sharedSecretWarning(file: string, what: string): string | undefined {
  let mode: number;
  try {
    mode = fs.statSync(file).mode & 0o777;
  } catch {
    return undefined; // the configuration names it: reading it says what is wrong
  }
  if ((mode & OTHERS) === 0) return undefined;
  return `${what} ${file} is readable by other users (mode ${mode.toString(8).padStart(4, '0')}); chmod 600 it`;
}
