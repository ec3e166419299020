/**
 * `greenline restore` checks a backup before LMDB maps it: a truncated, damaged, empty, foreign or newer backup, or
 * a folder, is a clear error and exit 1, and the data folder is left as it was (no `.restoring` file). A good backup
 * restores, its checksum verified. Before these checks a truncated backup killed restore with SIGBUS.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { backupStore } from '../../engine/store/backup.js';
import { openLmdbStore } from '../../engine/store/index.js';
import { runCli, withDataDir } from './process.js';

/** A store with `format` and enough entries to span many pages, backed up to `file` (with file.sha256). */
async function makeBackup(dir: string, file: string, format: number): Promise<void> {
  const data = join(dir, `source-${format}`);
  const store = openLmdbStore({ dir: data });
  store.write((tx) => {
    tx.put('meta', ['format'], format);
    for (let n = 0; n < 400; n++) tx.put('webhookDeliveries', [`delivery-${n}`], 'x'.repeat(300));
  });
  await store.close();
  await backupStore(data, file);
}

test('a truncated, damaged, empty, foreign or newer backup, or a folder, is a clear error that leaves nothing behind', async () => {
  await withDataDir(async (dir) => {
    const good = join(dir, 'good.backup');
    await makeBackup(dir, good, 2);
    await makeBackup(dir, join(dir, 'newer.backup'), 99);
    expect(existsSync(`${good}.sha256`)).toBe(true);
    const size = statSync(good).size;

    const variant = (name: string, make: (file: string) => void, checksum: boolean) => {
      const file = join(dir, name);
      copyFileSync(good, file);
      if (checksum) copyFileSync(`${good}.sha256`, `${file}.sha256`);
      make(file);
      return file;
    };
    const cases: { file: string; message: RegExp }[] = [
      {
        file: variant('half.backup', (file) => truncateSync(file, Math.floor(size / 2)), true),
        message: /does not match its checksum/,
      },
      {
        file: variant('half-unsummed.backup', (file) => truncateSync(file, Math.floor(size / 2)), false),
        message: /is truncated: \d+ bytes, but its header names/,
      },
      { file: variant('metas-only.backup', (file) => truncateSync(file, 4096), false), message: /is truncated/ },
      {
        file: variant(
          'damaged.backup',
          (file) => {
            const bytes = readFileSync(file);
            bytes[Math.floor(size / 2)] = (bytes[Math.floor(size / 2)] ?? 0) ^ 0xff;
            writeFileSync(file, bytes);
          },
          true,
        ),
        message: /does not match its checksum/,
      },
      {
        // Damaged without a checksum beside it: its header and length are right, its pages are not.
        file: variant(
          'scrambled-unsummed.backup',
          (file) => {
            const bytes = readFileSync(file);
            for (let at = 2 * 4096; at < bytes.length; at += 4096) bytes.fill(0xa5, at + 16, at + 4096);
            writeFileSync(file, bytes);
          },
          false,
        ),
        message: /scrambled-unsummed\.backup is damaged: /,
      },
      { file: variant('empty.backup', (file) => truncateSync(file, 0), false), message: /is empty/ },
      {
        file: variant('text.backup', (file) => writeFileSync(file, 'x'.repeat(20_000)), false),
        message: /not a backup of a Greenline store \(not an LMDB file\)/,
      },
      { file: join(dir, 'newer.backup'), message: /store format 99, newer than this build reads \(2\)/ },
      { file: join(dir, 'missing.backup'), message: /no backup file/ },
      { file: dir, message: /is a folder, not a backup file/ },
    ];
    const results = await Promise.all(
      cases.map(async ({ file, message }, index) => {
        const data = join(dir, `restore-${index}`);
        mkdirSync(data);
        return { file, message, data, result: await runCli(['restore', '--from', file, '--data', data], {}) };
      }),
    );
    for (const { file, message, data, result } of results) {
      expect({ file, code: result.code }, result.stderr).toEqual({ file, code: 1 });
      expect(result.stderr, file).toMatch(message);
      expect(result.stderr, file).not.toMatch(/\n\s+at /);
      expect(readdirSync(data), `${file} left files behind`).toEqual([]);
    }

    // The good backup restores, its checksum verified, into a folder of the owner's only.
    const restored = join(dir, 'restored');
    const ok = await runCli(['restore', '--from', good, '--data', restored], {});
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toContain('its checksum matched');
    expect(readdirSync(restored)).toEqual(['greenline.mdb']);
    expect(statSync(join(restored, 'greenline.mdb')).mode & 0o777).toBe(0o600);
    expect(statSync(restored).mode & 0o777).toBe(0o700);
  });
});
