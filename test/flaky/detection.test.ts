/** Detection on small synthetic histories, on a virtual clock: each monitor, its thresholds and its resolution. */
import { describe, expect, test } from 'vitest';
import { testId, type FlakyTests } from '../../engine/flaky/index.js';
import { DAY, HOUR, makeService, REPO, upload, type CaseSpec } from './helpers.js';

const ID = (name: string) => testId(REPO, { file: '', classname: 'Suite', parent: 'suite', name, variant: '' });
const sha = (n: number) => n.toString(16).padStart(40, '0');
const status = (service: FlakyTests, name: string) => service.getTest('acme', REPO, ID(name))?.status;
const listed = (service: FlakyTests, which: 'FLAKY' | 'BROKEN') =>
  service
    .listUnhealthy('acme', 'acme', { repo: REPO, pageSize: 100, pageToken: '', status: which })
    .rows.map((row) => row.test.name);

/** `outcomes` as one upload each, on distinct commits, an hour apart, on `branch`. */
function history(
  ctx: ReturnType<typeof makeService>,
  name: string,
  outcomes: string,
  branch = 'main',
  first = 0,
): void {
  [...outcomes].forEach((letter, index) => {
    ctx.clock.advance(HOUR);
    const outcome: CaseSpec['outcome'] = letter === 'F' ? 'failed' : letter === 'S' ? 'skipped' : 'passed';
    upload(ctx.service, [{ name, outcome, message: `boom at ${index}` }], { sha: sha(first + index), branch });
  });
}

describe('pass-on-retry', () => {
  test('a test that failed and passed in one upload (a retry) is flaky, with the evidence', () => {
    const ctx = makeService();
    upload(ctx.service, [{ name: 'retry', flakyFailures: ['timeout'] }]);
    expect(status(ctx.service, 'retry')).toMatchObject({ value: 'flaky', at: ctx.clock.now() });
    expect(status(ctx.service, 'retry')?.reason).toMatch(/^pass_on_retry: failed and passed on commit aaaaaaaaaaaa/);
    expect(listed(ctx.service, 'FLAKY')).toEqual(['retry']);
  });

  test('two uploads for one commit, one failing and one passing, make it flaky; different commits do not', () => {
    const ctx = makeService();
    upload(
      ctx.service,
      [
        { name: 'x', outcome: 'failed' },
        { name: 'y', outcome: 'failed' },
      ],
      { sha: sha(1) },
    );
    ctx.clock.advance(HOUR);
    upload(ctx.service, [{ name: 'x' }], { sha: sha(1) });
    upload(ctx.service, [{ name: 'y' }], { sha: sha(2) });
    expect(status(ctx.service, 'x')?.value).toBe('flaky');
    expect(status(ctx.service, 'y')?.value).toBe('healthy');
  });

  test('resolves 7 days after the last retry pass, with that moment as the status time', () => {
    const ctx = makeService();
    const flaggedAt = ctx.clock.now();
    upload(ctx.service, [{ name: 'retry', flakyFailures: ['timeout'] }]);
    ctx.clock.advance(7 * DAY - 1);
    expect(listed(ctx.service, 'FLAKY')).toEqual(['retry']);
    ctx.clock.advance(2 * DAY);
    expect(listed(ctx.service, 'FLAKY')).toEqual([]);
    expect(status(ctx.service, 'retry')).toMatchObject({ value: 'healthy', at: flaggedAt + 7 * DAY });
    expect(status(ctx.service, 'retry')?.reason).toMatch(/^resolved \(was flaky\): .*pass_on_retry: no commit/);
  });

  test('another retry pass within the 7 days keeps it flaky', () => {
    const ctx = makeService();
    upload(ctx.service, [{ name: 'retry', flakyFailures: ['t'] }], { sha: sha(1) });
    ctx.clock.advance(5 * DAY);
    upload(ctx.service, [{ name: 'retry', flakyFailures: ['t'] }], { sha: sha(2) });
    ctx.clock.advance(5 * DAY);
    expect(listed(ctx.service, 'FLAKY')).toEqual(['retry']);
    expect(status(ctx.service, 'retry')?.reason).toContain('(2 such commits)');
  });
});

describe('failure rate', () => {
  test('activates at 20% with at least 10 runs in the window', () => {
    const ctx = makeService();
    history(ctx, 'nine', 'FPPPFPPPP'); // 2 of 9: too few runs
    history(ctx, 'ten', 'FPPPFPPPPP', 'main', 100); // 2 of 10 = 20%
    history(ctx, 'rare', 'FPPPPPPPPPPP', 'main', 200); // 1 of 12
    expect(status(ctx.service, 'nine')?.value).toBe('healthy');
    expect(status(ctx.service, 'rare')?.value).toBe('healthy');
    expect(status(ctx.service, 'ten')).toMatchObject({ value: 'flaky' });
    expect(status(ctx.service, 'ten')?.reason).toMatch(/^failure_rate: 2 of 10 runs failed in the last 7 days \(20%/);
  });

  test('holds between the thresholds and resolves at 5% or below (hysteresis)', () => {
    const ctx = makeService();
    history(ctx, 't', 'FFPPPPPPPP'); // 20% → flaky
    history(ctx, 't', 'PPPP', 'main', 10); // 2 of 14 = 14%: holds
    expect(status(ctx.service, 't')?.value).toBe('flaky');
    history(ctx, 't', 'P'.repeat(26), 'main', 20); // 2 of 40 = 5%: resolves
    expect(status(ctx.service, 't')?.value).toBe('healthy');
  });

  test('resolves once its failures leave the 7-day window', () => {
    const ctx = makeService();
    history(ctx, 't', 'FFPPPPPPPP');
    expect(listed(ctx.service, 'FLAKY')).toEqual(['t']);
    ctx.clock.advance(8 * DAY);
    expect(listed(ctx.service, 'FLAKY')).toEqual([]);
  });

  test('skipped runs are not runs', () => {
    const ctx = makeService();
    history(ctx, 't', 'FFSSSSSSSSSSPP');
    expect(status(ctx.service, 't')?.value).toBe('healthy');
  });
});

describe('broken', () => {
  test('a high failure rate on the stable branch is broken, and broken outranks flaky', () => {
    const ctx = makeService();
    upload(ctx.service, [{ name: 't', flakyFailures: ['x'] }], { sha: sha(999), branch: 'pr-1' }); // flaky by retry
    history(ctx, 't', 'FFFFF');
    expect(status(ctx.service, 't')).toMatchObject({ value: 'broken' });
    expect(status(ctx.service, 't')?.reason).toMatch(
      /^broken: 5 of the latest 5 runs on the stable branches \(main, master\) failed \(100%/,
    );
    expect(listed(ctx.service, 'BROKEN')).toEqual(['t']);
    expect(listed(ctx.service, 'FLAKY')).toEqual([]);
  });

  test('failures on other branches never make a test broken', () => {
    const ctx = makeService();
    history(ctx, 't', 'FFFFFFFF', 'feature/x');
    expect(status(ctx.service, 't')?.value).not.toBe('broken');
  });

  test('a fixed broken test resolves, and does not turn flaky while its failures age out', () => {
    const ctx = makeService();
    history(ctx, 't', 'PPPPPFFFFFFFFF'); // 9 of the latest 10 failed
    expect(status(ctx.service, 't')?.value).toBe('broken');
    history(ctx, 't', 'PPPPP', 'main', 100); // 5 of the latest 10: resolved
    expect(status(ctx.service, 't')?.value).toBe('healthy');
    history(ctx, 't', 'PPPPPPPPPPPP', 'main', 200);
    expect(status(ctx.service, 't')?.value).toBe('healthy');
  });

  test('the stable branches are a setting', () => {
    const ctx = makeService();
    ctx.service.updateSettings('acme', 'acme', REPO, { stableBranches: ['trunk'] });
    history(ctx, 'a', 'FFFFF', 'main');
    history(ctx, 'b', 'FFFFF', 'trunk', 100);
    expect(status(ctx.service, 'a')?.value).not.toBe('broken');
    expect(status(ctx.service, 'b')?.value).toBe('broken');
  });
});

describe('infrastructure failures', () => {
  const cases = (failing: number, total: number): CaseSpec[] =>
    Array.from({ length: total }, (_, i) => ({ name: `t${i}`, outcome: i < failing ? 'failed' : 'passed' }));

  test('an upload with more than 80% of its tests failing is flagged and left out of detection', () => {
    const ctx = makeService();
    const result = upload(ctx.service, cases(9, 10), { sha: sha(1) });
    expect(result).toMatchObject({ tests: 10, failed: 9, infrastructureFailure: true });
    upload(ctx.service, cases(0, 10), { sha: sha(1) }); // the retry passes: no pass-on-retry from an infra failure
    expect(listed(ctx.service, 'FLAKY')).toEqual([]);
    // Still listed as failing in its time range.
    const failing = ctx.service.listFailing('acme', 'acme', {
      repo: REPO,
      pageSize: 100,
      pageToken: '',
      start: 0,
      end: ctx.clock.now() + 1,
    });
    expect(failing.page.totalRows).toBe(9);
  });

  test('80% exactly, or fewer than 5 tests, is not an infrastructure failure', () => {
    const ctx = makeService();
    expect(upload(ctx.service, cases(8, 10), { sha: sha(1) }).infrastructureFailure).toBe(false);
    expect(upload(ctx.service, cases(4, 4), { sha: sha(2) }).infrastructureFailure).toBe(false);
  });
});

describe('status timestamps and listings', () => {
  test('status.timestamp is when the status changed, not when it was last confirmed', () => {
    const ctx = makeService();
    upload(ctx.service, [{ name: 't', flakyFailures: ['x'] }], { sha: sha(1) });
    const changedAt = ctx.clock.now();
    ctx.clock.advance(3 * HOUR);
    upload(ctx.service, [{ name: 't', flakyFailures: ['x'] }], { sha: sha(2) });
    expect(status(ctx.service, 't')?.at).toBe(changedAt);
  });

  test('a listing reflects an upload as soon as it is answered', () => {
    const ctx = makeService();
    expect(listed(ctx.service, 'FLAKY')).toEqual([]);
    upload(ctx.service, [{ name: 'a', flakyFailures: ['x'] }]);
    expect(listed(ctx.service, 'FLAKY')).toEqual(['a']);
  });

  test('each variant is a test of its own', () => {
    const ctx = makeService();
    upload(ctx.service, [{ name: 't', flakyFailures: ['x'] }], { variant: 'windows' });
    upload(ctx.service, [{ name: 't' }], { variant: 'linux' });
    const rows = ctx.service.listUnhealthy('acme', 'acme', {
      repo: REPO,
      pageSize: 10,
      pageToken: '',
      status: 'FLAKY',
    }).rows;
    expect(rows.map((row) => row.test.variant)).toEqual(['windows']);
  });
});
