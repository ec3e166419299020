/**
 * Pagination properties: walking all pages (next tokens from the first page) yields every row exactly once, in
 * order, with consistent page objects, and the walk stays exactly the first page's snapshot while uploads, expiry,
 * quarantine changes and new failures arrive between pages.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { FlakyTests, Listing, PageInfo } from '../../engine/flaky/index.js';
import { DAY, HOUR, makeService, REPO, upload } from './helpers.js';

type Kind = 'flaky' | 'quarantined' | 'failing';

function listPage(
  service: FlakyTests,
  kind: Kind,
  pageSize: number,
  pageToken: string,
  window: [number, number],
): Listing<{ test: { id: string } }> {
  const query = { repo: REPO, pageSize, pageToken };
  if (kind === 'flaky') return service.listUnhealthy('acme', 'acme', { ...query, status: 'FLAKY' });
  if (kind === 'quarantined') return service.listQuarantined('acme', 'acme', query);
  return service.listFailing('acme', 'acme', { ...query, start: window[0], end: window[1] });
}

/** Walks every page from the first; `between` runs after each page. Returns the ids and the page objects. */
function walk(
  service: FlakyTests,
  kind: Kind,
  pageSize: number,
  window: [number, number],
  between: (step: number) => void,
) {
  const ids: string[] = [];
  const pages: PageInfo[] = [];
  let token = '';
  for (let step = 0; step < 1000; step++) {
    const listing = listPage(service, kind, pageSize, token, window);
    ids.push(...listing.rows.map((row) => row.test.id));
    pages.push(listing.page);
    token = listing.page.nextPageToken;
    if (token === '') break;
    between(step);
  }
  return { ids, pages };
}

/** A repository with `count` flaky tests (each failed and passed on one commit). */
function seeded(count: number) {
  const ctx = makeService();
  const names = Array.from({ length: count }, (_, i) => `seed-${i}`);
  if (count > 0)
    upload(
      ctx.service,
      names.map((name) => ({ name, flakyFailures: ['timeout'] })),
      { sha: '1'.repeat(40) },
    );
  return { ...ctx, names };
}

function allIds(service: FlakyTests, kind: Kind, window: [number, number]): string[] {
  return walk(service, kind, 100, window, () => undefined).ids;
}

const KINDS: Kind[] = ['flaky', 'quarantined', 'failing'];

function setUp(count: number) {
  const ctx = seeded(count);
  // Quarantine every seeded test by hand, so all three listings hold `count` rows.
  for (const id of allIds(ctx.service, 'flaky', [0, 1]))
    ctx.service.setQuarantine('acme', 'acme', REPO, id, 'ALWAYS_QUARANTINE');
  const window: [number, number] = [ctx.clock.now() - HOUR, ctx.clock.now() + DAY];
  return { ...ctx, window };
}

describe('pagination', () => {
  test('walking all pages yields every row exactly once, in order, with consistent page objects', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 45 }),
        fc.integer({ min: 1, max: 100 }),
        fc.constantFrom(...KINDS),
        (count, pageSize, kind) => {
          const ctx = setUp(count);
          const expected = allIds(ctx.service, kind, ctx.window);
          expect(expected).toHaveLength(count);
          const { ids, pages } = walk(ctx.service, kind, pageSize, ctx.window, () => undefined);
          expect(ids).toEqual(expected);
          expect(new Set(ids).size).toBe(ids.length);
          expect([...ids].sort()).toEqual(ids);
          const totalPages = Math.ceil(count / pageSize);
          expect(pages.length).toBe(Math.max(1, totalPages));
          pages.forEach((page, index) => {
            expect(page).toMatchObject({ totalRows: count, totalPages, pageIndex: index });
            expect(page.prevPageToken === '').toBe(index === 0);
            expect(page.lastPageToken === '').toBe(count === 0);
          });
          if (count > 0) {
            const last = listPage(ctx.service, kind, pageSize, pages[0]?.lastPageToken ?? '', ctx.window);
            expect(last.page.pageIndex).toBe(totalPages - 1);
            expect(last.rows.map((row) => row.test.id)).toEqual(ids.slice((totalPages - 1) * pageSize));
          }
          if (pages.length > 1) {
            const second = listPage(ctx.service, kind, pageSize, pages[0]?.nextPageToken ?? '', ctx.window);
            const back = listPage(ctx.service, kind, pageSize, second.page.prevPageToken, ctx.window);
            expect(back.rows.map((row) => row.test.id)).toEqual(ids.slice(0, pageSize));
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  test('a walk stays the first page’s snapshot while uploads and changes arrive between pages', () => {
    const change = fc.constantFrom(
      'newFlaky',
      'newFailures',
      'breakOne',
      'expire',
      'unquarantine',
      'quarantineNew',
      'nothing',
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 12 }),
        fc.constantFrom(...KINDS),
        fc.array(change, { minLength: 1, maxLength: 12 }),
        (count, pageSize, kind, changes) => {
          const ctx = setUp(count);
          const expected = allIds(ctx.service, kind, ctx.window);
          let fresh = 0;
          const { ids, pages } = walk(ctx.service, kind, pageSize, ctx.window, (step) => {
            const what = changes[step % changes.length];
            const sha = (1000 + step).toString(16).padStart(40, '0');
            if (what === 'newFlaky' || what === 'newFailures') {
              const names = [0, 1, 2].map(() => `fresh-${fresh++}`);
              upload(
                ctx.service,
                names.map((name) =>
                  what === 'newFlaky' ? { name, flakyFailures: ['x'] } : { name, outcome: 'failed' as const },
                ),
                { sha },
              );
            } else if (what === 'breakOne') {
              for (let i = 0; i < 10; i++)
                upload(ctx.service, [{ name: `seed-${step % count}`, outcome: 'failed' }], {
                  sha: `${sha.slice(0, 39)}${i}`,
                });
            } else if (what === 'expire') {
              ctx.clock.advance(8 * DAY);
            } else if (what === 'unquarantine') {
              const id = expected[step % expected.length];
              if (id !== undefined) ctx.service.setQuarantine('acme', 'acme', REPO, id, 'NEVER_QUARANTINE');
            } else if (what === 'quarantineNew') {
              const name = `fresh-${fresh++}`;
              upload(ctx.service, [{ name, flakyFailures: ['x'] }], { sha });
              const id = allIds(ctx.service, 'flaky', ctx.window).find((candidate) => !expected.includes(candidate));
              if (id !== undefined) ctx.service.setQuarantine('acme', 'acme', REPO, id, 'ALWAYS_QUARANTINE');
            }
          });
          expect(ids).toEqual(expected);
          for (const page of pages) expect(page.totalRows).toBe(count);
        },
      ),
      { numRuns: 60 },
    );
  });
});
