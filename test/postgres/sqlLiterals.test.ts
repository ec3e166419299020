/**
 * The literals the PostgreSQL worker writes into its one-round-trip queries (engine/store/postgres/sql.ts) read back
 * as exactly what was written, whatever the text holds: quotes, backslashes, dollar quotes, comments, statement ends,
 * non-ASCII; under either setting of standard_conforming_strings.
 */
import pg from 'pg';
import fc from 'fast-check';
import { afterAll, describe, expect, test } from 'vitest';
import { array, bytea, text } from '../../engine/store/postgres/sql.js';
import { startPostgres, type PgCluster } from './cluster.js';

const started = await startPostgres();
const cluster: PgCluster | undefined = 'unavailable' in started ? undefined : started;
if (cluster === undefined)
  console.warn(`SKIPPED: SQL literals against PostgreSQL: ${(started as { unavailable: string }).unavailable}`);
afterAll(async () => cluster?.stop());

const NASTY = [
  "it's",
  'back\\slash',
  "\\'; DROP TABLE greenline_kv; --",
  '$$ $tag$ ',
  "E'\\x00'",
  '/* c */ -- d',
  'ü ✓ 𝄞',
  "''",
  '\\',
  '',
];

describe.skipIf(cluster === undefined)('SQL literals', () => {
  test('text, bytes and arrays read back as written, with standard_conforming_strings on and off', async () => {
    const url = await (cluster as PgCluster).createDatabase();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      for (const conforming of ['on', 'off']) {
        await client.query(`SET standard_conforming_strings = ${conforming}`);
        const check = async (value: string, bytes: Uint8Array) => {
          const { rows } = await client.query(
            `SELECT ${text(value)} AS t, ${bytea(bytes)} AS b, ${array([text(value), text('x')], 'text')} AS a`,
          );
          expect(rows[0].t).toBe(value);
          expect(Buffer.compare(rows[0].b as Buffer, Buffer.from(bytes))).toBe(0);
          expect(rows[0].a).toEqual([value, 'x']);
        };
        for (const value of NASTY) await check(value, Buffer.from(value));
        await fc.assert(
          fc.asyncProperty(
            fc.string({ unit: 'binary', maxLength: 40 }).filter((value) => !value.includes('\u0000')),
            fc.uint8Array({ maxLength: 16 }),
            check,
          ),
          { numRuns: 100, seed: 1 },
        );
      }
    } finally {
      await client.end();
      await (cluster as PgCluster).dropDatabase(url);
    }
  });
});
