/**
 * The key that signs dashboard sessions, in a file of its own (`session.key` in the data folder, or
 * GREENLINE_SESSION_KEY_FILE): never in the store, so never in a backup or a database dump, and readable by its
 * owner only (0600, in a 0700 folder). It is made at the first start; replacing it (`greenline session rotate-key`,
 * or deleting it) ends every session at once: the service re-reads it whenever the file changes.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PRIVATE_FILE_MODE } from './backupFile.js';
import { PRIVATE_DIR_MODE } from './fileModes.js';

export const SESSION_KEY_FILE = 'session.key';
const KEY_BYTES = 32;

export class KeyFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyFileError';
  }
}

/** Writes a new random key to `file` (0600), atomically. `replace`: over an existing key; else only if none is there. */
function writeKey(file: string, replace: boolean): void {
  const dir = path.dirname(file);
  if (!fs.existsSync(dir)) {
    fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    fs.chmodSync(dir, PRIVATE_DIR_MODE);
  }
  const partial = `${file}.new-${process.pid}-${randomBytes(4).toString('hex')}`;
  fs.writeFileSync(partial, `${randomBytes(KEY_BYTES).toString('base64url')}\n`, {
    mode: PRIVATE_FILE_MODE,
    flag: 'wx',
  });
  try {
    fs.chmodSync(partial, PRIVATE_FILE_MODE);
    if (replace) fs.renameSync(partial, file);
    else {
      // Two processes starting at once on one folder: the first key made is the one both use.
      try {
        fs.linkSync(partial, file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
  } finally {
    fs.rmSync(partial, { force: true });
  }
}

/** Replaces the key in `file` with a new one: every session signed with the old key is refused from then on. */
export function rotateKeyFile(file: string): void {
  writeKey(file, true);
}

export class KeyFile {
  private cached: { key: Buffer; stamp: string } | undefined;

  constructor(
    readonly file: string,
    private readonly onWarning: (message: string) => void = (message) => console.warn(`greenline: ${message}`),
  ) {}

  /** The key: made when the file is missing, read again when the file changed (rotated). */
  key(): Buffer {
    let stat = statOf(this.file);
    if (stat === undefined) {
      writeKey(this.file, false);
      stat = statOf(this.file);
      if (stat === undefined) throw new KeyFileError(`cannot make the session key file ${this.file}`);
    }
    const stamp = `${stat.ino}:${stat.mtimeMs}:${stat.size}`;
    if (this.cached?.stamp === stamp) return this.cached.key;
    if ((stat.mode & 0o077) !== 0) {
      fs.chmodSync(this.file, PRIVATE_FILE_MODE);
      this.onWarning(`${this.file} was readable by other users (mode ${(stat.mode & 0o777).toString(8)}); now 0600`);
    }
    const text = fs.readFileSync(this.file, 'utf8').trim();
    const key = Buffer.from(text, 'base64url');
    if (!/^[A-Za-z0-9_-]+$/.test(text) || key.length < KEY_BYTES) {
      throw new KeyFileError(
        `${this.file} does not hold a session key (${KEY_BYTES} random bytes, base64url); delete it and a new one is made`,
      );
    }
    this.cached = { key, stamp };
    return key;
  }
}

function statOf(file: string): fs.Stats | undefined {
  try {
    return fs.statSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
