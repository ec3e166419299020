/** Synthetic JUnit reports for the flaky-test benchmarks (bench/flaky.ts, bench/flakyIngestion.ts). */
const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');

export interface Attempted {
  name: string;
  /** Outcomes of its attempts in this job, in order: true = failed. */
  attempts: boolean[];
  message: string;
}

/** A JUnit report in surefire's style: a failed-then-passed test carries flakyFailure, a repeated failure rerunFailure. */
export function junit(tests: readonly Attempted[]): string {
  const cases = tests.map(({ name, attempts, message }) => {
    const open = `<testcase classname="com.acme.Suite" name="${escapeXml(name)}" file="src/${escapeXml(name)}.test.ts" time="0.1">`;
    const final = attempts.at(-1) === true;
    const earlier = attempts.slice(0, -1).filter(Boolean).length;
    const msg = escapeXml(message);
    if (!final) return `${open}${`<flakyFailure message="${msg}"/>`.repeat(earlier)}</testcase>`;
    return `${open}<failure message="${msg}"/>${`<rerunFailure message="${msg}"/>`.repeat(earlier)}</testcase>`;
  });
  return `<testsuite name="com.acme.Suite" tests="${tests.length}">${cases.join('')}</testsuite>`;
}
