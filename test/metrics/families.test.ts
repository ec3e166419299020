/**
 * The families a scrape carries are exactly those of engine/metrics/families.ts, with their types, label names and
 * buckets (the documented ones as the addendum writes them), and docs/metrics.md explains every one of them.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, test } from 'vitest';
import { FAMILY_LIST } from '../../engine/metrics/index.js';
import { makeApi, type Api } from '../api/harness.js';
import { Driver, scrape } from './helpers.js';

let api: Api | undefined;

afterEach(async () => {
  await api?.close();
  api = undefined;
});

const DOCUMENTED = [
  'mq_depth_current',
  'mq_awaiting_mergeability',
  'mq_testing_slots_active',
  'mq_pr_conclusions_1h_total',
  'mq_pr_restarts_1h_total',
  'mq_pr_wait_duration_1h_seconds',
  'mq_pr_test_duration_1h_seconds',
  'mq_pr_time_in_queue_1h_seconds',
];

describe('the families', () => {
  test('every family, with its type, its label names and its buckets', async () => {
    api = await makeApi();
    const q = new Driver(api);
    await q.create({ batch: true, batchingMinSize: 2 });
    await q.submit(1, 2, 3);
    await q.advance(5);
    await q.fail(1); // a bisection under way: series of both queue types carry values
    await q.restart(3);
    const scraped = await scrape(api);

    expect([...scraped.families.keys()].sort()).toEqual(FAMILY_LIST.map((family) => family.name).sort());
    for (const name of DOCUMENTED) expect(scraped.families.has(name), name).toBe(true);
    for (const family of FAMILY_LIST) {
      const parsed = scraped.family(family.name);
      expect(parsed.type, family.name).toBe(family.type.toUpperCase());
      for (const one of parsed.series) {
        expect(Object.keys(one.labels).sort(), family.name).toEqual([...family.labels].sort());
        if (one.labels.queue_type !== undefined) expect(['main', 'bisection']).toContain(one.labels.queue_type);
        if (one.histogram !== undefined) {
          expect(Object.keys(one.histogram.buckets).sort(), family.name).toEqual(
            [...(family.buckets ?? []).map(String), '+Inf'].sort(),
          );
        }
      }
    }
    for (const name of DOCUMENTED) {
      for (const labels of scraped.series(name))
        expect(Object.keys(labels).slice(0, 3).sort()).toEqual(['branch', 'queue_type', 'repo']);
    }
    const wait = scraped.histogram('mq_pr_wait_duration_1h_seconds', {
      repo: 'acme/widgets',
      branch: 'main',
      queue_type: 'main',
    });
    expect(Object.keys(wait?.buckets ?? {})).toEqual(
      expect.arrayContaining(['60', '300', '600', '900', '1800', '3600', '5400', '7200', '+Inf']),
    );
    expect(Object.keys(wait?.buckets ?? {})).toHaveLength(9);
  });

  test('docs/metrics.md explains every family, and the README points at it', () => {
    const docs = readFileSync(new URL('../../docs/metrics.md', import.meta.url), 'utf8');
    for (const family of FAMILY_LIST) {
      const row = docs.split('\n').find((line) => line.startsWith(`| \`${family.name}\` |`));
      expect(row, `a row for ${family.name} in docs/metrics.md`).toBeDefined();
      expect(row, family.name).toContain(family.type);
    }
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    expect(readme).toContain('docs/metrics.md');
  });
});
