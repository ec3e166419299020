/** The README lists the error catalogue as it is, and every code of the catalogue is raised somewhere. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { glob } from 'tinyglobby';
import { describe, expect, test } from 'vitest';
import { ERROR_CODES, ERRORS } from '../../engine/model/errors.js';
import { errorTable, README, tableInReadme } from './errorTable.js';

describe('the error catalogue', () => {
  test('the README table is the catalogue (npm run readme:errors rewrites it)', () => {
    expect(tableInReadme(readFileSync(README, 'utf8'))).toBe(errorTable());
  });

  test('every code is raised by the service, and each one names its own condition', async () => {
    const root = join(README, '..');
    const files = await glob(['api/**/*.ts', 'engine/**/*.ts', 'web/**/*.ts'], {
      cwd: root,
      ignore: ['engine/model/errors.ts'],
    });
    const source = files.map((file) => readFileSync(join(root, file), 'utf8')).join('\n');
    const unused = ERROR_CODES.filter((code) => !source.includes(`'${code}'`));
    expect(unused, 'codes of the catalogue nothing raises').toEqual([]);
    const whens = ERROR_CODES.map((code) => ERRORS[code].when);
    expect(new Set(whens).size, 'two codes described alike').toBe(whens.length);
  });
});
