/**
 * The conformance suite generated from the machines, against a fresh Greenline server (the real `greenline serve`
 * on the simulated git host, CI steered through setCommitStatus): every state and edge reachable through the API is
 * reached, the interleavings keep the safety properties, the spec's checks pass; and `greenline conformance` runs
 * it from the command line with a JUnit report.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { printReport } from '../../conformance/report.js';
import { runConformance } from '../../conformance/run.js';
import { type Running, runCli, startServer, stop } from '../e2e/process.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';

const TOKEN = 'conformance-token-0123456789abcdef';

describe('the conformance suite against a fresh Greenline', () => {
  let dir: string;
  let server: Running;
  const env = () => ({
    GREENLINE_DATA: dir,
    GREENLINE_PROVIDER: 'sim',
    GREENLINE_API_TOKENS: `acme:${TOKEN}`,
    GREENLINE_RATE_LIMIT: '1000000',
  });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'greenline-conformance-'));
    server = await startServer(env());
  });

  afterAll(async () => {
    if (server !== undefined) await stop(server);
    await rm(dir, { recursive: true, force: true });
  });

  it('reaches every state and edge reachable through the API, and the properties and checks hold', async () => {
    // The wait is a budget for a stuck server: a loaded machine takes longer, never fails for it.
    const result = await runConformance({
      url: server.url,
      token: TOKEN,
      runs: 15,
      seed: 1,
      waitMs: 60_000,
      prefix: 'suite',
    });
    expect(result.failures, printReport(result)).toEqual([]);
    expect(result.steering).toBeUndefined();
    for (const machine of result.coverage) {
      expect(machine.edges.reached, machine.machine).toBe(machine.edges.reachable);
      expect(machine.states.reached, machine.machine).toBe(machine.states.reachable);
      expect(machine.edges.reachable, machine.machine).toBeGreaterThan(0);
    }
    // Every machine, the bisection's too, with each of its states reached through the API.
    expect(result.coverage.map((c) => c.machine)).toEqual(['pullRequest', 'queue', 'testRun', 'bisection']);
    const bisection = result.coverage.find((c) => c.machine === 'bisection');
    expect(bisection?.states.reached).toBe(bisection?.states.defined);
    // Every edge the definition declares is either reached or has its reason.
    const pr = result.coverage.find((c) => c.machine === 'pullRequest');
    expect((pr?.edges.reachable ?? 0) + (pr?.unreachable.length ?? 0)).toBe(pr?.edges.defined);
    expect(result.checks.filter((check) => check.failure === undefined).length).toBe(result.checks.length);
  });

  it('greenline conformance prints coverage and writes a JUnit report; a wrong token is a failure with curl', async () => {
    const junit = join(dir, 'conformance.xml');
    const run = await runCli(
      ['conformance', '--url', server.url, '--token', TOKEN, '--only', 'spec', '--junit', junit],
      env(),
    );
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('conformance: passed');
    const parsed = new XMLParser({ ignoreAttributes: false }).parse(await readFile(junit, 'utf8'));
    const suites = [parsed.testsuites.testsuite].flat() as {
      '@_name': string;
      '@_tests': string;
      '@_failures': string;
    }[];
    expect(suites.find((suite) => suite['@_name'] === 'conformance.checks')?.['@_failures']).toBe('0');
    expect(Number(suites.find((suite) => suite['@_name'] === 'conformance.checks')?.['@_tests'])).toBeGreaterThan(3);

    const wrong = await runCli(
      ['conformance', '--url', server.url, '--token', 'not-the-token-0000000000', '--only', 'spec'],
      env(),
    );
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toMatch(/FAIL .*\n.*\n.*to reproduce[\s\S]*curl -s -X POST/);
    const usage = await runCli(['conformance', '--url', server.url], { ...env(), GREENLINE_TOKEN: '' });
    expect(usage.code).toBe(2);
  });
});
