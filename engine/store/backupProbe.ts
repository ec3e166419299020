/**
 * The last check of a backup before restore opens it in its own process: another process opens the copy and reads
 * every entry of every collection. LMDB trusts its file, and a page damaged in a way the header and length checks
 * cannot see (a backup without its checksum) could crash whatever maps it; here only the probe dies, and restore
 * says so. What it prints is the number of entries read.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { BackupError } from './backupFile.js';
import { COLLECTION_NAMES } from './common.js';

const PROBE = `
const [lmdbPath, file, names] = process.argv.slice(1);
const { open } = await import(lmdbPath);
const env = open({ path: file, readOnly: true, maxDbs: 64 });
let entries = 0;
for (const name of JSON.parse(names)) {
  for (const _ of env.openDB(name, { encoding: 'json', keyEncoding: 'binary' }).getRange({})) entries++;
}
await env.close();
process.stdout.write(String(entries));
`;

/** Reads every entry of the LMDB file `file` in a child process; resolves to how many, or rejects with BackupError. */
export function probeBackup(file: string, shownAs: string): Promise<number> {
  const lmdb = createRequire(import.meta.url).resolve('lmdb');
  const lmdbUrl = new URL(`file://${lmdb}`).href;
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--input-type=module', '-e', PROBE, lmdbUrl, file, JSON.stringify(COLLECTION_NAMES)],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', (error) => reject(new BackupError(`cannot check ${shownAs}: ${error.message}`)));
    child.on('exit', (code, signal) => {
      if (code === 0 && /^\d+$/.test(out)) return resolve(Number(out));
      const why =
        signal !== null
          ? `reading it crashed LMDB (${signal})`
          : (/Error: (.*)/.exec(err)?.[1] ?? `its check ended with code ${code}`);
      reject(new BackupError(`${shownAs} is damaged: ${why}`));
    });
  });
}
