/**
 * The test-case limit of an upload, checked before anything is parsed: one pass over the reports' text counts the
 * `<testcase` start tags (outside comments, CDATA sections and processing instructions, the only places well-formed
 * XML may hold a `<` that starts no element) and stops as soon as the count passes the limit. So an oversize upload
 * is refused within milliseconds of the case that crosses the limit, without the full parse (seconds, hundreds of
 * MB) and without waiting for a parser's turn. The parse that follows counts the cases again, exactly.
 */
import { engineError } from '../model/errors.js';

/** What, after a `<`, skips to where: comments, CDATA sections, processing instructions and declarations. */
const SKIPS: readonly (readonly [string, string])[] = [
  ['<!--', '-->'],
  ['<![CDATA[', ']]>'],
  ['<?', '?>'],
  ['<!', '>'],
];

const TESTCASE = '<testcase';

/** Whether the character after `<testcase` ends the name (so `<testcases>` or `<testcase2>` do not count). */
function endsName(code: number): boolean {
  return (
    code === 0x20 ||
    code === 0x09 ||
    code === 0x0a ||
    code === 0x0d ||
    code === 0x2f ||
    code === 0x3e ||
    Number.isNaN(code)
  );
}

/** The `<testcase` elements of `xml`, counted up to `stopAfter` (then it stops looking). */
export function countTestCases(xml: string, stopAfter: number): number {
  let count = 0;
  let at = xml.indexOf('<');
  while (at !== -1 && count <= stopAfter) {
    let next = at + 1;
    const skip =
      xml.charCodeAt(at + 1) === 0x21 || xml.charCodeAt(at + 1) === 0x3f
        ? SKIPS.find(([open]) => xml.startsWith(open, at))
        : undefined;
    if (skip !== undefined) {
      const end = xml.indexOf(skip[1], at + skip[0].length);
      if (end === -1) break;
      next = end + skip[1].length;
    } else if (xml.startsWith(TESTCASE, at) && endsName(xml.charCodeAt(at + TESTCASE.length))) {
      count += 1;
      next = at + TESTCASE.length;
    }
    at = xml.indexOf('<', next);
  }
  return count;
}

/** Refuses (too_many_test_cases) an upload whose reports hold more than `limit` test cases, counting as it goes. */
export function checkTestCaseLimit(reports: readonly { xml: string }[], limit: number): void {
  let total = 0;
  for (const report of reports) {
    total += countTestCases(report.xml, limit - total);
    if (total > limit) throw engineError('too_many_test_cases', { limit });
  }
}
