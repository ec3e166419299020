/**
 * The JUnit corpus (shared/fixtures/junit-corpus, beside the repository): every report parses to the counts its
 * results file gives, and every report with a `.exception` beside it is rejected with an error naming it. The
 * corpus is read where it lies, never copied; without it the test is skipped with a message saying so.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { parseJUnitReport, reportStats, ReportError, type ReportStats } from '../../engine/flaky/index.js';
import { makeApi } from '../api/harness.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const corpusDir = resolve(repoRoot, '../shared/fixtures/junit-corpus');
const present = existsSync(corpusDir);

function reports(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return reports(path);
    return name.endsWith('.xml') ? [path] : [];
  });
}

const files = present ? reports(corpusDir).sort() : [];
const rejected = files.filter((file) => existsSync(file.replace(/\.xml$/, '.exception')));
const accepted = files.filter((file) => !rejected.includes(file));
const name = (file: string) => relative(corpusDir, file);

/** The corpus' results files count in the same terms as the parser's stats. */
type ExpectedStats = ReportStats;

function expected(file: string): ExpectedStats {
  return (JSON.parse(readFileSync(file.replace(/\.xml$/, '.results.json'), 'utf8')) as { stats: ExpectedStats }).stats;
}

describe.skipIf(!present)('the JUnit corpus', () => {
  test('is there and holds both kinds of report', () => {
    expect(accepted.length).toBeGreaterThan(20);
    expect(rejected.length).toBeGreaterThanOrEqual(2);
  });

  test.each(accepted.map((file) => [name(file), file]))('%s parses to the expected counts', (_name, file) => {
    const stats = reportStats(parseJUnitReport(name(file), readFileSync(file, 'utf8')));
    const want = expected(file);
    const { suites, tests, tests_succ, tests_skip, tests_fail, tests_error, runs } = want;
    expect(stats).toMatchObject({ suites, tests, tests_succ, tests_skip, tests_fail, tests_error, runs });
    // Per-run counts where a test case appears more than once (the reference takes the others from suite attributes).
    if (want.runs !== want.tests) {
      const { runs_succ, runs_skip, runs_fail, runs_error } = want;
      expect(stats).toMatchObject({ runs_succ, runs_skip, runs_fail, runs_error });
    }
  });

  test.each(rejected.map((file) => [name(file), file]))('%s is rejected with an error naming it', (_name, file) => {
    let error: unknown;
    try {
      parseJUnitReport(name(file), readFileSync(file, 'utf8'));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ReportError);
    expect((error as ReportError).message).toContain(name(file));
  });

  test('uploaded through the API, each accepted report answers its counts', async () => {
    const api = await makeApi();
    try {
      for (const [index, file] of accepted.entries()) {
        const want = expected(file);
        const response = await api.post('flaky-tests/upload', {
          repo: { host: 'github.com', owner: 'acme', name: 'corpus' },
          org_url_slug: 'acme',
          commit_sha: index.toString(16).padStart(40, '0'),
          branch: 'main',
          reports: [{ file: name(file), xml: readFileSync(file, 'utf8') }],
        });
        expect(response.statusCode, `${name(file)}: ${response.body}`).toBe(200);
        expect(response.json(), name(file)).toMatchObject({
          tests: want.tests,
          passed: want.tests_succ,
          failed: want.tests_fail + want.tests_error,
          skipped: want.tests_skip,
        });
      }
    } finally {
      await api.close();
    }
  });

  test('an upload with a rejected report among valid ones is refused whole', async () => {
    const api = await makeApi();
    try {
      const [bad] = rejected;
      const body = {
        repo: { host: 'github.com', owner: 'acme', name: 'corpus' },
        org_url_slug: 'acme',
        commit_sha: 'f'.repeat(40),
        branch: 'main',
        reports: [...accepted.slice(0, 3), bad as string].map((file) => ({
          file: name(file),
          xml: readFileSync(file, 'utf8'),
        })),
      };
      const response = await api.post('flaky-tests/upload', body);
      expect(response.statusCode).toBe(400);
      expect((response.json() as { message: string }).message).toContain(name(bad as string));
      const stored = api.store.stats().entries;
      expect(stored.flakyUploads + stored.flakyTests + stored.flakyFailures).toBe(0);
    } finally {
      await api.close();
    }
  });
});

test.runIf(!present)('the JUnit corpus is missing', () => {
  console.warn(
    `skipped the JUnit corpus checks: ${corpusDir} is not there (it lives in shared/, beside the repository)`,
  );
});
