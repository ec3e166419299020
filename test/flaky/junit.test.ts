/** The parser on what runners write beyond the corpus: retries, attempts, entities, CDATA, odd files. */
import { describe, expect, test } from 'vitest';
import { aggregateUpload } from '../../engine/flaky/aggregate.js';
import { parseJUnitReport, ReportError, reportStats } from '../../engine/flaky/index.js';
import { REPO } from './helpers.js';

const parse = (xml: string) => parseJUnitReport('report.xml', xml);

describe('parseJUnitReport', () => {
  test('surefire flakyFailure: failed attempts of a test that passed; rerunFailure: more failed attempts', () => {
    const report = parse(`<testsuite name="com.acme.FooTest">
      <testcase name="flaky" classname="com.acme.FooTest">
        <flakyFailure message="timeout 30s" type="java.lang.AssertionError"><stackTrace>at x</stackTrace></flakyFailure>
        <flakyError message="connection reset"/>
      </testcase>
      <testcase name="broken" classname="com.acme.FooTest">
        <failure message="expected 1 but was 2"/>
        <rerunFailure message="expected 1 but was 3"/>
      </testcase>
    </testsuite>`);
    const [flaky, broken] = report.cases;
    expect(flaky).toMatchObject({
      outcome: 'passed',
      retriedFailures: 2,
      messages: ['timeout 30s', 'connection reset'],
    });
    expect(broken).toMatchObject({ outcome: 'failed', retriedFailures: 1 });
    const upload = aggregateUpload(REPO, '', [report]);
    const tests = [...upload.tests.values()];
    expect(tests.map((test) => test.attempts)).toEqual([
      { passed: 1, failed: 2, skipped: 0 },
      { passed: 0, failed: 2, skipped: 0 },
    ]);
    // The usual reading: a test that finally passed is passed.
    expect(upload.counts).toEqual({ tests: 2, passed: 1, failed: 1, skipped: 0 });
  });

  test('a test case repeated in one upload is several attempts of one test (across reports too)', () => {
    const one = parse('<testsuite name="s"><testcase classname="C" name="t"><failure/></testcase></testsuite>');
    const two = parseJUnitReport('other.xml', '<testsuite name="s"><testcase classname="C" name="t"/></testsuite>');
    const upload = aggregateUpload(REPO, '', [one, two]);
    expect(upload.tests.size).toBe(1);
    expect([...upload.tests.values()][0]?.attempts).toEqual({ passed: 1, failed: 1, skipped: 0 });
    expect(upload.counts).toMatchObject({ tests: 1, failed: 1 });
  });

  test('entities and character references are decoded once; CDATA is taken literally', () => {
    const report = parse(`<?xml version="1.0"?>
      <testsuite name="a &amp;#233; b"><testcase classname="C" name="&lt;t&gt; &#233;&#x1F600; &quot;q&quot; &apos;a&apos;">
        <failure message="line1&#10;line2"><![CDATA[raw &amp; <kept>]]></failure>
      </testcase></testsuite>`);
    expect(report.cases[0]).toMatchObject({
      name: '<t> é😀 "q" \'a\'',
      parent: 'a &#233; b',
      messages: ['line1\nline2'],
    });
  });

  test('the message falls back to the first line of the text, then the type', () => {
    const report = parse(`<testsuite><testcase name="a"><failure>
        first line
        second</failure></testcase><testcase name="b"><error type="SegFault"/></testcase></testsuite>`);
    expect(report.cases.map((testCase) => testCase.messages)).toEqual([['first line'], ['SegFault']]);
  });

  test('a byte-order mark, namespaces, unusual unicode and time with commas', () => {
    const report = parse(
      '\ufeff<ns:testsuites xmlns:ns="urn:x"><ns:testsuite name="𝔰"><ns:testcase name="ok 헴" time="1,234.5"/></ns:testsuite></ns:testsuites>',
    );
    expect(report.cases[0]).toMatchObject({ name: 'ok 헴', parent: '𝔰', durationMs: 1_234_500, outcome: 'passed' });
  });

  test('file comes from the case, else from the nearest suite; parent is the enclosing suite', () => {
    const report = parse(`<testsuites><testsuite name="outer" file="a.py"><testsuite name="inner">
      <testcase name="x"/><testcase name="y" file="b.py"/></testsuite></testsuite></testsuites>`);
    expect(report.cases.map(({ file, parent }) => ({ file, parent }))).toEqual([
      { file: 'a.py', parent: 'inner' },
      { file: 'b.py', parent: 'inner' },
    ]);
    expect(reportStats(report).suites).toBe(1);
  });

  test.each([
    ['an empty file', '', 'empty'],
    ['not XML', 'hello', 'not well-formed XML'],
    ['a truncated file', '<testsuites><testsuite><testcase name="a">', 'ends before'],
    ['another root', '<results><test/></results>', 'root element is <results>'],
    ['mismatched tags', '<testsuite><testcase></testsuite></testcase>', 'not well-formed XML'],
  ])('rejects %s, naming the file', (_what, xml, reason) => {
    expect(() => parse(xml)).toThrow(ReportError);
    expect(() => parse(xml)).toThrow(/report "report\.xml".*/);
    expect(() => parse(xml)).toThrow(reason);
  });

  test('DOCTYPE entities are not expanded', () => {
    const report = parse(`<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>
      <testsuite><testcase name="&b;"/></testsuite>`);
    expect(report.cases[0]?.name).toBe('&b;');
  });
});
