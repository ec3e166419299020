/** Builders for flaky-test tests: JUnit XML, upload bodies, listing bodies, and a service on a virtual clock. */
import { FlakyTests } from '../../engine/flaky/index.js';
import { createMemoryStore } from '../../engine/store/index.js';
import type { Store } from '../../engine/store/store.js';

export type CaseOutcome = 'passed' | 'failed' | 'error' | 'skipped';

export interface CaseSpec {
  name: string;
  classname?: string;
  file?: string;
  outcome?: CaseOutcome;
  message?: string;
  /** Surefire flakyFailure elements: failed attempts of a test that then passed. */
  flakyFailures?: string[];
}

const escapeXml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function junitXml(cases: readonly CaseSpec[], suite = 'suite'): string {
  const body = cases
    .map((spec) => {
      const attrs = [
        `name="${escapeXml(spec.name)}"`,
        `classname="${escapeXml(spec.classname ?? 'Suite')}"`,
        'time="0.01"',
      ];
      if (spec.file !== undefined) attrs.push(`file="${escapeXml(spec.file)}"`);
      const message = escapeXml(spec.message ?? 'assertion failed');
      const inner =
        spec.outcome === 'failed'
          ? `<failure message="${message}">trace</failure>`
          : spec.outcome === 'error'
            ? `<error message="${message}">trace</error>`
            : spec.outcome === 'skipped'
              ? '<skipped/>'
              : (spec.flakyFailures ?? []).map((text) => `<flakyFailure message="${escapeXml(text)}"/>`).join('');
      return `    <testcase ${attrs.join(' ')}>${inner}</testcase>`;
    })
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n  <testsuite name="${escapeXml(suite)}" tests="${cases.length}">\n${body}\n  </testsuite>\n</testsuites>\n`;
}

export const REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };

export function uploadBody(cases: readonly CaseSpec[], extra: Record<string, unknown> = {}) {
  return {
    repo: REPO,
    org_url_slug: 'acme',
    commit_sha: 'a'.repeat(40),
    branch: 'main',
    reports: [{ file: 'reports/junit.xml', xml: junitXml(cases) }],
    ...extra,
  };
}

export function listBody(extra: Record<string, unknown> = {}, pageSize = 100, pageToken = '') {
  return { repo: REPO, org_url_slug: 'acme', page_query: { page_size: pageSize, page_token: pageToken }, ...extra };
}

export const START = Date.parse('2026-11-22T12:00:00.000Z');
export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

/** A service on a memory store (or the given one) and a virtual clock. */
export function makeService(store: Store = createMemoryStore(), start = START) {
  let now = start;
  const clock = { now: () => now, set: (ms: number) => void (now = ms), advance: (ms: number) => void (now += ms) };
  return { service: new FlakyTests(store, clock), clock, store };
}

/** An upload through the service, with reasonable defaults. */
export function upload(
  service: FlakyTests,
  cases: readonly CaseSpec[],
  extra: Partial<{
    sha: string;
    branch: string;
    prNumber: number;
    variant: string;
    timestamp: number;
    codeowners: string;
  }> = {},
  org = 'acme',
) {
  return service.upload(org, {
    repo: REPO,
    sha: extra.sha ?? 'a'.repeat(40),
    branch: extra.branch ?? 'main',
    variant: extra.variant ?? '',
    reports: [{ file: 'junit.xml', xml: junitXml(cases) }],
    ...(extra.prNumber !== undefined && { prNumber: extra.prNumber }),
    ...(extra.timestamp !== undefined && { timestamp: extra.timestamp }),
    ...(extra.codeowners !== undefined && { codeowners: extra.codeowners }),
  });
}
