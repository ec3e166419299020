/**
 * The test-case limit of an upload is checked before the reports are parsed (flaky/ingestLimits.ts): an oversize
 * upload is refused from one pass over its text, as soon as the count crosses the limit — so what comes after that
 * point is never looked at, not even when it is not well-formed.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { countTestCases } from '../../engine/flaky/ingestLimits.js';
import { MAX_TEST_CASES_PER_UPLOAD } from '../../engine/flaky/index.js';
import { expectErrorBody, makeApi, REPO, type Api } from '../api/harness.js';

let api: Api | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe('countTestCases', () => {
  test('counts <testcase> start tags, not lookalikes, comments, CDATA or processing instructions', () => {
    const xml = [
      '<?xml version="1.0"?><testsuites><testsuite name="s">',
      '<testcase name="a"/>',
      '<testcase\tname="b"></testcase>',
      '<testcase>',
      '</testcase>',
      '<!-- <testcase name="commented"/> -->',
      '<![CDATA[ <testcase name="data"/> ]]>',
      '<?pi <testcase name="pi"/> ?>',
      '<testcases/><testcase2/><testcaseX name="x"/>',
      '</testsuite></testsuites>',
    ].join('\n');
    expect(countTestCases(xml, 100)).toBe(3);
  });

  test('stops once the count passes the limit', () => {
    const xml = `<testsuite>${'<testcase/>'.repeat(50)}<!-- never closed`;
    expect(countTestCases(xml, 10)).toBe(11);
    expect(countTestCases(xml, 1000)).toBe(50);
  });
});

describe('an oversize upload over HTTP', () => {
  test('is refused as too_many_test_cases before its reports are parsed: a broken tail after the limit is never read', async () => {
    api = await makeApi();
    const cases = '<testcase name="t"/>'.repeat(MAX_TEST_CASES_PER_UPLOAD + 1);
    // Not well-formed after the limit: parsing it first would answer invalid_report.
    const xml = `<testsuite name="s">${cases}<unclosed></testsuite>`;
    const response = await api.post('flaky-tests/upload', {
      repo: REPO,
      commit_sha: 'abcdef1',
      branch: 'main',
      reports: [{ file: 'r.xml', xml }],
    });
    const body = expectErrorBody(response, 400, 'bad_request');
    expect(body).toMatchObject({ reason: 'too_many_test_cases' });
    expect(api.store.read((tx) => tx.count('flakyUploads'))).toBe(0);
  });

  test('the limit counts across the reports of one upload', async () => {
    api = await makeApi();
    const half = Math.floor(MAX_TEST_CASES_PER_UPLOAD / 2) + 1;
    const report = (file: string) => ({
      file,
      xml: `<testsuite name="${file}">${'<testcase name="t"/>'.repeat(half)}</testsuite>`,
    });
    const response = await api.post('flaky-tests/upload', {
      repo: REPO,
      commit_sha: 'abcdef1',
      branch: 'main',
      reports: [report('a.xml'), report('b.xml')],
    });
    expect(expectErrorBody(response, 400, 'bad_request')).toMatchObject({ reason: 'too_many_test_cases' });
  });
});
