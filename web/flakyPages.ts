/**
 * The flaky-test pages: the organization's repositories, each repository's listings (failing in a time range,
 * flaky, broken, quarantined) with filters and paging, and a test's page (its history charted, its failures, its
 * quarantine override). Read through the flaky-tests service, as the API reads them.
 */
import type { Engine } from '../engine/engine.js';
import { engineError } from '../engine/model/errors.js';
import { repoSlug, type RepoRef, type TestRow } from '../engine/flaky/index.js';
import { DAY_MS, HOUR_MS } from '../engine/flaky/buckets.js';
import type { PageInfo } from '../engine/flaky/index.js';
import { html, raw, type Html } from './html.js';
import { historySvg } from './trend.js';

export const LISTS = ['failing', 'flaky', 'broken', 'quarantined'] as const;
export type ListName = (typeof LISTS)[number];
/** The failing listing's time ranges, in hours. */
export const RANGES = [1, 24, 168] as const;

export interface ListingQuery {
  repo: RepoRef;
  list: ListName;
  pageSize: number;
  pageToken: string;
  hours: number;
}

const invalid = (message: string) => engineError('invalid_field', { problem: message });

export function repositoriesOf(engine: Engine, org: string): RepoRef[] {
  return engine.flakyTests.repositories(org);
}

/** Reads and checks the listing's query string; every bad value is refused by name. */
export function listingQuery(
  engine: Engine,
  org: string,
  query: Record<string, string | undefined>,
): ListingQuery | undefined {
  const repos = repositoriesOf(engine, org);
  // Without a repository named, the first one with results: the page shows a listing on arrival, not an empty form.
  const slug =
    query.repo === undefined || query.repo === ''
      ? repos[0] === undefined
        ? undefined
        : repoSlug(repos[0])
      : query.repo.toLowerCase();
  if (slug === undefined) return undefined;
  const repo = repos.find((candidate) => repoSlug(candidate) === slug);
  if (repo === undefined) throw engineError('repo_not_found', { repo: slug });
  const list = (query.list ?? 'failing') as ListName;
  if (!LISTS.includes(list)) throw invalid(`list must be one of ${LISTS.join(', ')}`);
  const pageSize = Number(query.pageSize ?? '25');
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100)
    throw invalid('pageSize must be a whole number from 1 to 100');
  const hours = Number(query.hours ?? '24');
  if (!(RANGES as readonly number[]).includes(hours)) throw invalid(`hours must be one of ${RANGES.join(', ')}`);
  return { repo, list, pageSize, pageToken: query.pageToken ?? '', hours };
}

function listing(engine: Engine, org: string, query: ListingQuery): { rows: TestRow[]; page: PageInfo } {
  const service = engine.flakyTests;
  const page = { repo: query.repo, pageSize: query.pageSize, pageToken: query.pageToken };
  if (query.list === 'failing') {
    const end = engine.clock.now() + 1;
    return service.listFailing(org, org, { ...page, start: end - query.hours * HOUR_MS, end });
  }
  if (query.list === 'quarantined') return service.listQuarantined(org, org, page);
  return service.listUnhealthy(org, org, { ...page, status: query.list === 'flaky' ? 'FLAKY' : 'BROKEN' });
}

const percent = (rate: number) => `${(100 * rate).toFixed(1)}%`;

function listingUrl(query: ListingQuery, pageToken: string): string {
  const params = new URLSearchParams({
    repo: repoSlug(query.repo),
    list: query.list,
    pageSize: String(query.pageSize),
    hours: String(query.hours),
  });
  if (pageToken !== '') params.set('pageToken', pageToken);
  return `/flaky?${params.toString()}`;
}

function filters(engine: Engine, org: string, query: ListingQuery | undefined): Html {
  const repos = repositoriesOf(engine, org);
  if (repos.length === 0)
    return html`<p class="muted">No test results uploaded yet (see <code>greenline upload</code>).</p>`;
  const current = query === undefined ? '' : repoSlug(query.repo);
  return html`<form method="get" action="/flaky" class="filters">
<label>Repository<select name="repo">${repos.map((repo) => html`<option value="${repoSlug(repo)}"${repoSlug(repo) === current ? html` selected` : ''}>${repo.host}/${repo.owner}/${repo.name}</option>`)}</select></label>
<label>Listing<select name="list">${LISTS.map((list) => html`<option${query?.list === list ? html` selected` : ''}>${list}</option>`)}</select></label>
<label>Failing within<select name="hours">${RANGES.map((hours) => html`<option value="${hours}"${query?.hours === hours ? html` selected` : ''}>${hours === 1 ? 'the last hour' : hours === 24 ? 'the last day' : 'the last week'}</option>`)}</select></label>
<label>Per page<input name="pageSize" inputmode="numeric" value="${query?.pageSize ?? 25}"></label>
<button type="submit">Show</button></form>`;
}

export function flakyBody(engine: Engine, org: string, query: ListingQuery | undefined): Html {
  if (query === undefined) return filters(engine, org, undefined);
  const { rows, page } = listing(engine, org, query);
  const pager = html`<nav class="pager" aria-label="Pages"><span>Page ${page.pageIndex + 1} of ${Math.max(1, page.totalPages)} (${page.totalRows} tests)</span>
${page.prevPageToken === '' ? '' : html`<a href="${listingUrl(query, page.prevPageToken)}">Previous</a>`}
${page.nextPageToken === '' ? '' : html`<a href="${listingUrl(query, page.nextPageToken)}">Next</a>`}</nav>`;
  const table =
    rows.length === 0
      ? html`<p class="muted">No test in this listing.</p>`
      : html`<div class="scroll" tabindex="0" role="region" aria-label="tests"><table class="tests"><thead><tr><th scope="col">Test</th><th scope="col">Status</th><th scope="col">Quarantine</th><th scope="col">Failures 24 h</th><th scope="col">Failures 7 d</th><th scope="col">PRs impacted 7 d</th><th scope="col">Owners</th></tr></thead><tbody>${rows.map(
          (
            row,
          ) => html`<tr data-test="${row.test.id}"><td><a href="/tests/${row.test.id}">${row.test.name}</a><div class="muted">${row.test.classname || row.test.file}</div></td>
<td><span class="state state-${row.test.status.value.toUpperCase()}">${row.test.status.value}</span></td><td>${row.quarantine ?? 'no'}</td>
<td>${percent(row.failureRate24h)}</td><td>${percent(row.failureRate7d)}</td><td>${row.pullRequestsImpacted7d}</td><td>${row.codeowners.join(', ')}</td></tr>`,
        )}</tbody></table></div>`;
  return html`${filters(engine, org, query)}<h2>${query.list} tests of ${query.repo.owner}/${query.repo.name}</h2>${table}${pager}`;
}

/** Runs and failures per day over the kept days, oldest first. */
export function dailyHistory(
  days: readonly (readonly number[])[],
  now: number,
): { day: string; runs: number; fails: number }[] {
  const today = Math.floor(now / DAY_MS);
  return Array.from({ length: 9 }, (_, offset) => {
    const index = today - 8 + offset;
    const bucket = days.find((candidate) => candidate[0] === index);
    return {
      day: new Date(index * DAY_MS).toISOString().slice(0, 10),
      runs: bucket?.[1] ?? 0,
      fails: bucket?.[2] ?? 0,
    };
  });
}

export async function testBody(engine: Engine, org: string, testId: string): Promise<{ name: string; body: Html }> {
  const { repo, row } = engine.flakyTests.testDetail(org, org, testId);
  const test = row.test;
  const history = dailyHistory(test.days, engine.clock.now());
  const chart = await historySvg(history);
  const override = test.override?.setting;
  const action = (setting: string, label: string, pressed: boolean) =>
    html`<form method="post" action="/tests/${test.id}/quarantine"><input type="hidden" name="setting" value="${setting}"><button type="submit"${pressed ? html` disabled` : ''}>${label}</button></form>`;
  const body = html`<p>${repo.host}/${repo.owner}/${repo.name} · ${test.file || test.classname}${test.variant === '' ? '' : ` · variant ${test.variant}`}</p>
<p>Status <span class="state state-${test.status.value.toUpperCase()}" data-field="test-status">${test.status.value}</span> · ${test.status.reason}</p>
<p>Quarantined: <strong data-field="quarantine">${row.quarantine === undefined ? 'no' : `yes (${row.quarantine})`}</strong>${override === undefined ? '' : ` · override ${override}`}</p>
<div class="controls">${action('ALWAYS_QUARANTINE', 'Quarantine', override === 'ALWAYS_QUARANTINE')}${action('NEVER_QUARANTINE', 'Never quarantine', override === 'NEVER_QUARANTINE')}${action('clear', 'Clear override', override === undefined)}</div>
<p>Failure rate ${percent(row.failureRate24h)} in the last 24 h, ${percent(row.failureRate7d)} in the last 7 days; ${test.totals.runs} runs, ${test.totals.fails} failures in all.</p>
<h2>History</h2><div class="chart" tabindex="0" role="region" aria-label="history chart">${raw(chart)}</div>
<h2>Most common failures</h2>${
    row.mostCommonFailures.length === 0
      ? html`<p class="muted">None in the last 7 days.</p>`
      : html`<div class="scroll" tabindex="0" role="region" aria-label="most common failures"><table><thead><tr><th scope="col">Failure</th><th scope="col">Count</th><th scope="col">Last</th></tr></thead><tbody>${row.mostCommonFailures.map(
          (failure) =>
            html`<tr><td><code>${failure.summary}</code></td><td>${failure.count}</td><td>${new Date(failure.lastAt).toISOString()}</td></tr>`,
        )}</tbody></table></div>`
  }
<h2>Status history</h2><ol class="timeline">${test.history.map((entry) => html`<li>${new Date(entry.at).toISOString()} <strong>${entry.value}</strong> ${entry.reason}</li>`)}</ol>`;
  return { name: test.name, body };
}
