/** A conformance run for people (text: coverage, each failure as curl) and for CI (JUnit XML). */
import { printCoverage } from './coverage.js';
import type { ConformanceResult } from './run.js';

export function printReport(result: ConformanceResult, verbose = false): string {
  const lines: string[] = [];
  const passed = (items: { failure?: unknown }[]) => items.filter((item) => item.failure === undefined).length;
  lines.push(
    `generated paths: ${passed(result.paths)}/${result.paths.length} passed; checks: ${passed(result.checks)}/${result.checks.length} passed (${(result.ms / 1000).toFixed(1)} s)`,
  );
  if (result.steering !== undefined) lines.push(`CI not steerable: ${result.steering}; the spec's checks only`);
  if (result.paths.length > 0) lines.push(printCoverage(result.coverage, verbose));
  for (const failure of result.failures) {
    lines.push('', `FAIL ${failure.name}`, `  ${failure.message}`);
    if (failure.curl !== '')
      lines.push(
        '  to reproduce (GREENLINE_TOKEN: the token):',
        ...failure.curl.split('\n').map((line) => `    ${line}`),
      );
  }
  lines.push(
    '',
    result.failures.length === 0
      ? 'conformance: passed'
      : `conformance: ${result.failures.length} failure${result.failures.length === 1 ? '' : 's'}`,
  );
  return lines.join('\n');
}

function xml(text: string): string {
  return text
    .replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] as string)
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD]/gu, '');
}

/** JUnit XML: a suite per part, a case per path or check (what `greenline upload --junit` reads). */
export function junitReport(result: ConformanceResult): string {
  const suites: { name: string; cases: { name: string; ms: number; failure?: { message: string; curl: string } }[] }[] =
    [
      { name: 'conformance.paths', cases: result.paths },
      { name: 'conformance.checks', cases: result.checks },
      {
        name: 'conformance.coverage',
        cases: result.coverage.map((c) => ({
          name: `${c.machine} reaches every edge reachable through the API`,
          ms: 0,
          ...(c.missed.length === 0 || result.paths.length === 0
            ? {}
            : { failure: { message: `not reached: ${c.missed.join('; ')}`, curl: '' } }),
        })),
      },
    ];
  const out = ['<?xml version="1.0" encoding="UTF-8"?>', '<testsuites name="greenline conformance">'];
  for (const suite of suites) {
    const failures = suite.cases.filter((c) => c.failure !== undefined).length;
    out.push(`  <testsuite name="${xml(suite.name)}" tests="${suite.cases.length}" failures="${failures}">`);
    for (const c of suite.cases) {
      const head = `    <testcase classname="${xml(suite.name)}" name="${xml(c.name)}" file="conformance" time="${(c.ms / 1000).toFixed(3)}"`;
      if (c.failure === undefined) out.push(`${head}/>`);
      else
        out.push(
          `${head}>`,
          `      <failure message="${xml(c.failure.message)}">${xml(c.failure.curl)}</failure>`,
          '    </testcase>',
        );
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>', '');
  return out.join('\n');
}
