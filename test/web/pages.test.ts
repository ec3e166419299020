/** The dashboard's pure parts: escaping, the path a PR took, lanes, the median, the settings form's reading. */
import { describe, expect, test } from 'vitest';
import { fc, test as prop } from '@fast-check/vitest';
import type { TestRunDetails } from '../../engine/engine.js';
import type { TimelineEntry } from '../../engine/model/pullRequests.js';
import { newQueue } from '../../engine/model/queues.js';
import { bisectionTree, type TreeNode } from '../../web/bisectionTree.js';
import { html, raw } from '../../web/html.js';
import { lanesOf } from '../../web/queuePage.js';
import { settingsForm, settingsFromForm } from '../../web/settingsForm.js';
import { highlightCss, machineSvg, pathTaken } from '../../web/stateCharts.js';
import { median } from '../../web/stats.js';
import { dailyFigures, dailySvg } from '../../web/dailyCharts.js';

const entry = (event: string): TimelineEntry => ({ at: '2026-11-22T12:00:00.000Z', entryId: 'e', event, message: '' });

describe('html', () => {
  prop.prop([fc.string()])('interpolated text never makes markup', (text) => {
    const out = html`<p title="${text}">${text}</p>`.text;
    expect(out.slice(3, -4).replace(/title="[^"]*">/, '')).not.toMatch(/[<>]/);
    expect((out.match(/"/g) ?? []).length).toBe(2);
  });
  test('raw and nested html pass through; arrays join; null and false vanish', () => {
    expect(html`<b>${raw('<i>x</i>')}${[html`<u>1</u>`, '<2>']}${null}${false}</b>`.text).toBe(
      '<b><i>x</i><u>1</u>&lt;2&gt;</b>',
    );
  });
});

describe('the path a PR took', () => {
  test('from its timeline, repeats dropped, ending in its state; a new submission starts over', () => {
    const events = [
      'submitted',
      'not_ready',
      'ready',
      'testing',
      'pending_failure',
      'bisecting',
      'testing',
      'passed',
      'merging',
      'merged',
    ];
    expect(pathTaken(events.map(entry), 'MERGED')).toEqual([
      'NOT_READY',
      'PENDING',
      'TESTING',
      'PENDING_FAILURE',
      'PENDING',
      'TESTING',
      'TESTS_PASSED',
      'MERGED',
    ]);
    expect(pathTaken(['submitted', 'ready', 'cancelled', 'submitted', 'ready'].map(entry), 'PENDING')).toEqual([
      'NOT_READY',
      'PENDING',
    ]);
    expect(pathTaken([], 'NOT_READY')).toEqual(['NOT_READY']);
  });

  test('the highlight names states and edges of the drawn chart', () => {
    const svg = machineSvg('pullRequest');
    expect(svg).not.toContain('@import');
    const css = highlightCss('c', ['PENDING', 'TESTING'], 'TESTING');
    expect(css).toContain('#c polyline[data-from="PENDING"][data-to="TESTING"]');
    expect(svg).toContain('data-from="PENDING" data-to="TESTING"');
    expect(svg).toContain('data-id="TESTING"');
  });
});

describe('lanes', () => {
  const run = (id: string, prs: number[], basePrs: number[]) =>
    ({ run: { id, prs, basePrs } }) as unknown as TestRunDetails;
  test('runs sharing PRs (tested or as dependencies) share a lane; others run apart', () => {
    const lanes = lanesOf([run('a', [1], []), run('b', [2], []), run('c', [3], [1]), run('d', [4], [2, 3])]);
    expect(lanes.map((lane) => lane.map((details) => details.run.id))).toEqual([['a', 'c', 'b', 'd']]);
    expect(
      lanesOf([run('a', [1], []), run('b', [2], []), run('c', [3], [1])]).map((lane) =>
        lane.map((details) => details.run.id),
      ),
    ).toEqual([['b'], ['a', 'c']]);
  });
});

test('median', () => {
  expect(median([])).toBeNull();
  expect(median([5, 1, 3])).toBe(3);
  expect(median([4, 1, 3, 2])).toBe(2.5);
});

describe('the settings form', () => {
  const queue = newQueue(
    { id: 'q', org: 'o', repo: { host: 'h', owner: 'o', name: 'n' }, branch: 'main', now: '2026-01-01T00:00:00Z' },
    {},
  );
  test('digits become numbers, anything else is passed on for the schema to refuse; empty numbers are left out', () => {
    const form = new URLSearchParams(
      'concurrency=4&batchingMinSize=x&bisectionConcurrency=&batch=true&commentsEnabled=false&statusCheckEnabled=maybe&mode=parallel',
    );
    expect(settingsFromForm(form, queue)).toEqual({
      concurrency: 4,
      batchingMinSize: 'x',
      batch: true,
      commentsEnabled: false,
      statusCheckEnabled: 'maybe',
      mode: 'parallel',
    });
  });
  test('the largest batch: posted like every number, shown empty (the minimum size) until set', () => {
    expect(settingsFromForm(new URLSearchParams('batchingMaxSize=12'), queue)).toEqual({ batchingMaxSize: 12 });
    expect(settingsFromForm(new URLSearchParams('batchingMaxSize='), queue)).toEqual({});
    const unset = String(settingsForm({ ...queue, runtime: { ...queue.runtime, policy: 2 } }));
    expect(unset).toContain(
      '<input name="batchingMaxSize" inputmode="numeric" value="" placeholder="the minimum size">',
    );
    expect(String(settingsForm({ ...queue, runtime: { ...queue.runtime, policy: undefined } }))).toContain(
      'value="" placeholder="the minimum size"',
    );
    expect(String(settingsForm({ ...queue, settings: { ...queue.settings, batchingMaxSize: 12 } }))).toContain(
      'name="batchingMaxSize" inputmode="numeric" value="12"',
    );
  });
  test('the parallel bases: a choice the form shows, transitive until set, and posts', () => {
    expect(settingsFromForm(new URLSearchParams('parallelBases=direct'), queue)).toEqual({ parallelBases: 'direct' });
    const shown = settingsForm(queue).text;
    expect(shown).toMatch(
      /<select name="parallelBases"><option selected>transitive<\/option><option>direct<\/option><\/select>/,
    );
    expect(settingsForm({ ...queue, settings: { ...queue.settings, parallelBases: 'direct' } }).text).toContain(
      '<option selected>direct</option>',
    );
  });
  test('required statuses: a list, or clearing them when there were some', () => {
    expect(settingsFromForm(new URLSearchParams('requiredStatuses=a,+b,,'), queue)).toEqual({
      requiredStatuses: ['a', 'b'],
    });
    expect(settingsFromForm(new URLSearchParams('requiredStatuses='), queue)).toEqual({});
    expect(settingsFromForm(new URLSearchParams('requiredStatuses='), { ...queue, requiredStatuses: ['a'] })).toEqual({
      deleteRequiredStatuses: true,
    });
  });
});

describe('a bisection as a tree', () => {
  const show = (nodes: TreeNode[]): unknown[] =>
    nodes.map((node) => [
      node.kind === 'failed' ? 'failed' : `group ${node.name}`,
      node.prs,
      ...(node.children.length > 0 ? [show(node.children)] : []),
    ]);
  test('groups under the smallest failed set holding them; failed halves under the batch', () => {
    const groups = new Map([
      ['g2', [3, 4]],
      ['g3', [1]],
      ['g4', [2]],
    ]);
    expect(
      show(
        bisectionTree(
          [
            [1, 2, 3, 4],
            [1, 2],
            [1, 2, 3, 4],
          ],
          groups,
        ),
      ),
    ).toEqual([
      [
        'failed',
        [1, 2, 3, 4],
        [
          [
            'failed',
            [1, 2],
            [
              ['group g3', [1]],
              ['group g4', [2]],
            ],
          ],
          ['group g2', [3, 4]],
        ],
      ],
    ]);
  });
  test('a group equal to a failed set sits under it; a group outside every failed set is a root of its own', () => {
    expect(
      show(
        bisectionTree(
          [[5, 6]],
          new Map([
            ['g0', [5, 6]],
            ['g9', [7]],
          ]),
        ),
      ),
    ).toEqual([
      ['failed', [5, 6], [['group g0', [5, 6]]]],
      ['group g9', [7]],
    ]);
    expect(bisectionTree([], new Map())).toEqual([]);
  });
});

describe('the days of the organization page', () => {
  test('merges, median time to merge and test runs per UTC day, from the ended PRs; the chart says them in words', async () => {
    const now = Date.parse('2026-11-22T12:00:00Z');
    const ended = (endedAt: string, state: 'MERGED' | 'FAILED' | 'CANCELLED', minutes: number, runIds: string[]) => ({
      number: 1,
      entryId: 'e',
      title: '',
      author: '',
      state,
      reason: null,
      submittedAt: new Date(Date.parse(endedAt) - minutes * 60_000).toISOString(),
      endedAt,
      runIds,
      mergedSha: null,
    });
    // Each run: when it started and how many minutes it took; `c` tested two PRs (counted once), `e` runs still,
    // `gone` was pruned, `early` ended before the first day drawn.
    const at = (iso: string, minutes: number) => ({
      createdAt: new Date(Date.parse(iso) - minutes * 60_000).toISOString(),
      endedAt: iso,
    });
    const runs: Record<string, { createdAt: string; endedAt: string | null }> = {
      a: at('2026-11-16T00:50:00Z', 12),
      b: at('2026-11-22T00:40:00Z', 7.5),
      c: at('2026-11-22T01:50:00Z', 20),
      d: at('2026-11-22T02:55:00Z', 3),
      e: { createdAt: '2026-11-22T03:00:00Z', endedAt: null },
      early: at('2026-11-15T23:00:00Z', 30),
      old: at('2026-11-15T23:50:00Z', 5),
    };
    const days = dailyFigures(
      [
        ended('2026-11-16T01:00:00Z', 'MERGED', 10, ['early', 'a']),
        ended('2026-11-22T01:00:00Z', 'MERGED', 10, ['b', 'c']),
        ended('2026-11-22T02:00:00Z', 'MERGED', 30, ['c']),
        ended('2026-11-22T03:00:00Z', 'FAILED', 5, ['d', 'gone']),
        ended('2026-11-22T03:30:00Z', 'CANCELLED', 5, ['e']),
        ended('2026-11-15T23:59:59Z', 'MERGED', 1, ['old']),
      ],
      now,
      (runId) => runs[runId],
    );
    expect(days.map((day) => day.day)).toEqual([
      '2026-11-16',
      '2026-11-17',
      '2026-11-18',
      '2026-11-19',
      '2026-11-20',
      '2026-11-21',
      '2026-11-22',
    ]);
    expect(days[0]).toEqual({ day: '2026-11-16', merges: 1, medianMinutesToMerge: 10, runs: 1, ciMinutes: 12 });
    expect(days[6]).toEqual({ day: '2026-11-22', merges: 2, medianMinutesToMerge: 20, runs: 3, ciMinutes: 30.5 });
    expect(days[3]).toEqual({ day: '2026-11-19', merges: 0, medianMinutesToMerge: null, runs: 0, ciMinutes: 0 });
    const svg = await dailySvg(days);
    expect(svg).toContain(
      'aria-label="last 7 days: 2026-11-16: 1 merged in a median 10 minutes, 12 CI minutes in 1 test runs;',
    );
    for (const title of ['merges', 'median min to merge', 'CI minutes', 'day (UTC)']) expect(svg).toContain(title);
  });
});
