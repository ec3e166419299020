import { pathToFileURL } from 'node:url';
import { FlakyTests } from '../engine/flaky/index.js';
import { createMemoryStore } from '../engine/store/index.js';
import { benchIngestion } from './flakyIngestion.js';
import { type Attempted, junit } from './flakyJunit.js';
import { random } from './measure.js';

const REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface SyntheticTest {
  name: string;
  kind: 'healthy' | 'flaky' | 'broken';
  /** Flaky: the chance one attempt fails. */
  failureChance: number;
  /** Broken: from when it fails on every branch (it is broken on main, so every later commit has it)... */
  brokenFrom: number;
  /** ...until when (a fix lands): a test fixed before the end is healthy again. */
  fixedAt: number;
}

interface Quality {
  label: string;
  truth: number;
  flagged: number;
  hits: number;
}

function printQuality(title: string, rows: Quality[]): void {
  console.log(`\n${title}`);
  console.log(
    `${'class'.padEnd(10)} ${'true'.padStart(6)} ${'flagged'.padStart(8)} ${'correct'.padStart(8)} ${'precision'.padStart(10)} ${'recall'.padStart(8)}`,
  );
  for (const row of rows) {
    const precision = row.flagged === 0 ? 1 : row.hits / row.flagged;
    const recall = row.truth === 0 ? 1 : row.hits / row.truth;
    console.log(
      `${row.label.padEnd(10)} ${String(row.truth).padStart(6)} ${String(row.flagged).padStart(8)} ${String(row.hits).padStart(8)} ` +
        `${precision.toFixed(3).padStart(10)} ${recall.toFixed(3).padStart(8)}`,
    );
  }
}

/**
 * Two weeks of CI on one repository: every hour one job on main and three on pull-request branches, each running
 * every test. Healthy tests pass, except when a PR breaks one (it fails on every run of that PR, retries too);
 * flaky tests fail each attempt with their own chance (0.5% to 30%, log-uniform); broken tests fail everywhere
 * from their breaking time on, and some are fixed again before the end (then they are healthy). A third of the
 * jobs retry failed tests once (a pass-on-retry signal); 1% of jobs are infrastructure failures (almost
 * everything fails). Detection is read from the listings at the end.
 */
export function benchDetection(): void {
  const rng = random(20_261_122);
  const start = Date.parse('2026-11-01T00:00:00.000Z');
  const days = 14;
  const tests: SyntheticTest[] = [];
  const end = start + days * DAY;
  for (let i = 0; i < 150; i++) {
    tests.push({ name: `healthy_${i}`, kind: 'healthy', failureChance: 0, brokenFrom: Infinity, fixedAt: Infinity });
  }
  for (let i = 0; i < 30; i++) {
    const failureChance = 0.005 * Math.exp(rng() * Math.log(0.3 / 0.005));
    tests.push({ name: `flaky_${i}`, kind: 'flaky', failureChance, brokenFrom: Infinity, fixedAt: Infinity });
  }
  for (let i = 0; i < 20; i++) {
    tests.push({
      name: `broken_${i}`,
      kind: 'broken',
      failureChance: 0,
      brokenFrom: start + (3 + rng() * 10) * DAY,
      fixedAt: Infinity,
    });
  }
  for (let i = 0; i < 10; i++) {
    // Broken for a day or two, fixed at least two days before the end: healthy by then.
    const brokenFrom = start + (2 + rng() * 8) * DAY;
    tests.push({
      name: `fixed_${i}`,
      kind: 'healthy',
      failureChance: 0,
      brokenFrom,
      fixedAt: Math.min(brokenFrom + (1 + rng()) * DAY, end - 2 * DAY),
    });
  }
  let now = start;
  const service = new FlakyTests(createMemoryStore(), { now: () => now });
  const prBreaks = new Map<number, string>();
  let uploads = 0;
  let results = 0;
  let sha = 0;
  const began = process.hrtime.bigint();
  for (let hour = 0; hour < days * 24; hour++) {
    for (let job = 0; job < 4; job++) {
      now = start + hour * HOUR + job * 10 * 60_000;
      const onMain = job === 0;
      const pr = onMain ? undefined : 1 + Math.floor(hour / 6) * 3 + job; // each PR lives ~6 hours
      if (pr !== undefined && !prBreaks.has(pr))
        prBreaks.set(pr, rng() < 0.15 ? `healthy_${Math.floor(rng() * 150)}` : '');
      const retries = rng() < 1 / 3;
      const infrastructure = rng() < 0.01;
      const attempted: Attempted[] = tests.map((test) => {
        const fails = (): boolean => {
          if (infrastructure) return rng() < 0.95;
          if (now >= test.brokenFrom && now < test.fixedAt) return true;
          if (pr !== undefined && prBreaks.get(pr) === test.name) return true;
          return test.kind === 'flaky' && rng() < test.failureChance;
        };
        const attempts = [fails()];
        if (attempts[0] && retries && !infrastructure) attempts.push(fails());
        return {
          name: test.name,
          attempts,
          message: `AssertionError at line ${Math.floor(rng() * 500)} after ${Math.floor(rng() * 9000)}ms`,
        };
      });
      service.upload('acme', {
        repo: REPO,
        sha: (++sha).toString(16).padStart(40, '0'),
        branch: onMain ? 'main' : `pr-${pr}`,
        variant: '',
        reports: [{ file: 'junit.xml', xml: junit(attempted) }],
        ...(pr !== undefined && { prNumber: pr }),
      });
      uploads += 1;
      results += attempted.length;
    }
  }
  const seconds = Number(process.hrtime.bigint() - began) / 1e9;
  const listed = (status: 'FLAKY' | 'BROKEN') => {
    const names = new Set<string>();
    let pageToken = '';
    do {
      const page = service.listUnhealthy('acme', 'acme', { repo: REPO, pageSize: 100, pageToken, status });
      for (const row of page.rows) names.add(row.test.name);
      pageToken = page.page.nextPageToken;
    } while (pageToken !== '');
    return names;
  };
  const quality = (label: string, kind: SyntheticTest['kind'], flagged: Set<string>): Quality => ({
    label,
    truth: tests.filter((test) => test.kind === kind).length,
    flagged: flagged.size,
    hits: tests.filter((test) => test.kind === kind && flagged.has(test.name)).length,
  });
  printQuality(
    `flaky-test detection on a synthetic history (${days} days, ${uploads} uploads, ${results} test results; ` +
      `${tests.length} tests: 150 healthy, 10 broken then fixed, 30 flaky at 0.5–30%, 20 broken; ` +
      `ingested in ${seconds.toFixed(1)} s)`,
    [quality('flaky', 'flaky', listed('FLAKY')), quality('broken', 'broken', listed('BROKEN'))],
  );
  const flaky = listed('FLAKY');
  const broken = listed('BROKEN');
  const missed = tests.filter((test) => test.kind === 'flaky' && !flaky.has(test.name));
  if (missed.length > 0) {
    console.log(
      `missed flaky tests (failure chance): ${missed.map((test) => `${test.name} (${(test.failureChance * 100).toFixed(1)}%)`).join(', ')}`,
    );
  }
  const wrong = tests.filter(
    (test) => (flaky.has(test.name) && test.kind !== 'flaky') || (broken.has(test.name) && test.kind !== 'broken'),
  );
  if (wrong.length > 0) console.log(`wrongly flagged: ${wrong.map((test) => test.name).join(', ')}`);
}

export async function benchFlaky(): Promise<void> {
  benchDetection();
  await benchIngestion();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(`node ${process.version}, ${process.platform}/${process.arch}`);
  await benchFlaky();
}
