/**
 * The test-case count of an upload's JSON body as it arrives (flaky/streamingCaseCount.ts): over any split of the body
 * into chunks it equals the count of the parsed reports (ingestLimits.ts) for bodies as JSON.stringify writes them,
 * and for bodies whose encoder escapes characters as \uXXXX.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { countTestCases } from '../../engine/flaky/ingestLimits.js';
import { StreamingCaseCounter } from '../../engine/flaky/streamingCaseCount.js';

const PIECES = [
  '<testcase name="a"/>',
  '<testcase\tname="b"></testcase>',
  '<testcase\nname="nl"/>',
  '<testcase/>',
  '<testcase>x</testcase>',
  '<!-- <testcase name="commented"/> -->',
  '<![CDATA[ <testcase name="data"/> "quoted" \\ ]]>',
  '<?pi <testcase name="pi"/> ?>',
  '<!DOCTYPE x>',
  '<testcases/>',
  '<testcase2/>',
  '<testcaseX name="x"/>',
  '<failure message="a \\"quoted\\" <testcase/> text"/>',
  'text with "quotes" and \\ backslashes',
  'é ü 漢字 <',
  '\\',
  '"',
];

const xmlArb = fc
  .array(fc.constantFrom(...PIECES), { maxLength: 30 })
  .map((parts) => `<testsuite name="s">${parts.join('')}</testsuite>`);
const bodyArb = fc.record({
  reports: fc.array(fc.record({ file: fc.constantFrom('r.xml', '<testcase/>', 'a"b\\c'), xml: xmlArb }), {
    maxLength: 3,
  }),
  extra: fc.constantFrom('<testcase name="not a report"/>', ''),
});

function countInChunks(body: string, cuts: number[]): number {
  const bytes = Buffer.from(body);
  const counter = new StreamingCaseCounter();
  let from = 0;
  for (const cut of [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)) {
    counter.write(bytes.subarray(from, cut));
    from = cut;
  }
  counter.write(bytes.subarray(from));
  return counter.count;
}

const parsedCount = (body: { reports: { xml: string }[] }) =>
  body.reports.reduce((sum, report) => sum + countTestCases(report.xml, Number.MAX_SAFE_INTEGER), 0);

describe('StreamingCaseCounter', () => {
  test('equals the parsed count over every split of a JSON.stringify body (keys in any order)', () => {
    fc.assert(
      fc.property(bodyArb, fc.array(fc.nat(), { maxLength: 12 }), fc.boolean(), (body, cuts, xmlFirst) => {
        const reports = body.reports.map((r) => (xmlFirst ? { xml: r.xml, file: r.file } : r));
        const text = JSON.stringify({ repo: { name: body.extra }, reports, branch: body.extra });
        expect(countInChunks(text, cuts)).toBe(parsedCount(body));
      }),
      { numRuns: 300 },
    );
  });

  test('equals the parsed count when characters are escaped as \\uXXXX', () => {
    fc.assert(
      fc.property(
        bodyArb,
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.constantFrom('<', '>', '-', '/', '!', '?', '[', 'c', 'é', ' '),
        (body, cuts, escaped) => {
          const code = `\\u${escaped.charCodeAt(0).toString(16).padStart(4, '0')}`;
          // A JSON encoder that escapes one character everywhere (Go's escapes <, > and &).
          const text = JSON.stringify(body).replace(/"(?:[^"\\]|\\.)*"/g, (literal) =>
            literal.replaceAll(escaped, code),
          );
          expect(JSON.parse(text)).toEqual(body);
          expect(countInChunks(text, cuts)).toBe(parsedCount(body));
        },
      ),
      { numRuns: 300 },
    );
  });

  test('counts only the xml of reports, not other fields nor nested look-alikes', () => {
    const text = JSON.stringify({
      xml: '<testcase/>',
      reports: [{ file: '<testcase/>', xml: '<testcase/><testcase/>', more: { xml: '<testcase/>' } }],
      r: { reports: [{ xml: '<testcase/>' }] },
    });
    expect(countInChunks(text, [])).toBe(2);
  });
});
