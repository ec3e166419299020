/** The outbox's retry policy table (engine/runtime/retryPolicy.ts): its semantics, and every effect kind in it. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  EngineError,
  ERROR_CODES,
  ERRORS,
  type EngineErrorCode,
  type EngineErrorKind,
} from '../../engine/model/errors.js';
import {
  decideRetry,
  RETRY_POLICIES,
  retryDelayMs,
  type EffectKind,
  type EffectOf,
} from '../../engine/runtime/retryPolicy.js';

const repo = { host: 'github.com', owner: 'acme', name: 'widgets' };

/** One effect of every kind: a kind missing here is a compile error, as it is in the table. */
const SAMPLES: { [K in EffectKind]: EffectOf<K> } = {
  fetchTargetHead: { kind: 'fetchTargetHead', repo, branch: 'main' },
  checkPullRequest: { kind: 'checkPullRequest', repo, branch: 'main', number: 1, entryId: 'e1' },
  buildTestBranch: {
    kind: 'buildTestBranch',
    request: { repo, targetBranch: 'main', runId: 'r7', baseSha: 'abc', pullRequests: [], mergeMethod: 'merge_commit' },
  },
  startCi: {
    kind: 'startCi',
    run: { org: 'o', repo, runId: 'r7', branch: 'b', sha: 's', startedAt: 0, baseSha: 'abc' },
  },
  endRun: { kind: 'endRun', repo, runId: 'r7', branch: 'b' },
  merge: {
    kind: 'merge',
    number: 1,
    entryId: 'e1',
    request: {
      repo,
      targetBranch: 'main',
      expectedHead: 'abc',
      pullRequest: { number: 1, sha: 's', title: 't' },
      testBranchSha: null,
      mergeMethod: 'merge_commit',
    },
  },
  comment: { kind: 'comment', repo, number: 1, body: 'hello' },
  statusCheck: { kind: 'statusCheck', repo, sha: 's', state: 'pending', description: 'testing' },
  stateLabel: { kind: 'stateLabel', repo, number: 1, state: 'PENDING' },
  checkRun: {
    kind: 'checkRun',
    repo,
    number: 1,
    sha: 's',
    externalId: 'e1',
    check: { status: 'queued', title: 't', summary: 's' },
  },
  notify: { kind: 'notify', org: 'o', events: [] },
};
const KINDS = Object.keys(SAMPLES) as EffectKind[];
/** Every code the engine raises, and so every kind of EngineError (the catalogue's, engine/model/errors.ts). */
const ENGINE_CODES = ERROR_CODES.filter((code) => 'kind' in ERRORS[code]) as EngineErrorCode[];
const codesOfKind = (errorKind: EngineErrorKind) => ENGINE_CODES.filter((code) => ERRORS[code].kind === errorKind);

const kind = fc.constantFrom(...KINDS);
const attempt = fc.integer({ min: 1, max: 200 });

describe('the retry policy table', () => {
  it('has a policy for every effect kind, and only for those', () => {
    expect(Object.keys(RETRY_POLICIES).sort()).toEqual([...KINDS].sort());
    for (const name of KINDS) {
      const policy = RETRY_POLICIES[name];
      expect(policy.initialIntervalMs, name).toBeGreaterThan(0);
      expect(policy.backoffCoefficient, name).toBeGreaterThanOrEqual(1);
      expect(policy.maximumIntervalMs, name).toBeGreaterThanOrEqual(policy.initialIntervalMs);
      expect(policy.maximumAttempts === undefined, name).toBe(policy.giveUp === undefined);
    }
  });

  it('keeps the outbox as it was: 1 s doubling up to 5 minutes; a test branch build given up after 10 failures; the rest retried forever', () => {
    expect([1, 2, 3, 9, 10, 100].map((n) => retryDelayMs(RETRY_POLICIES.merge, n))).toEqual([
      1_000, 2_000, 4_000, 256_000, 300_000, 300_000,
    ]);
    for (const name of KINDS) {
      expect(RETRY_POLICIES[name].nonRetryable, name).toEqual(['not_found']);
      expect(RETRY_POLICIES[name].maximumAttempts, name).toBe(name === 'buildTestBranch' ? 10 : undefined);
    }
    expect(decideRetry(SAMPLES.buildTestBranch, 9, new Error('disk quota exceeded')).action).toBe('retry');
    expect(decideRetry(SAMPLES.buildTestBranch, 10, new Error('disk quota exceeded'))).toEqual({
      action: 'giveUp',
      input: {
        type: 'branchBuilt',
        runId: 'r7',
        result: {
          ok: false,
          reason: 'the git host failed to build the test branch 10 times: disk quota exceeded',
          gaveUp: true,
        },
      },
      what: 'run r7',
      delayMs: 300_000,
    });
  });

  it('gives delays that start at the initial interval, never decrease and never pass the maximum', () => {
    fc.assert(
      fc.property(kind, fc.integer({ min: 2, max: 80 }), (name, count) => {
        const delays = Array.from({ length: count }, (_, i) => retryDelayMs(RETRY_POLICIES[name], i + 1));
        expect(delays[0]).toBe(RETRY_POLICIES[name].initialIntervalMs);
        for (let i = 1; i < delays.length; i++) expect(delays[i]).toBeGreaterThanOrEqual(delays[i - 1] as number);
        for (const delay of delays) expect(delay).toBeLessThanOrEqual(RETRY_POLICIES[name].maximumIntervalMs);
      }),
    );
  });

  it('gives non-decreasing, capped delays for any policy with a coefficient of at least 1', () => {
    const policy = fc.record({
      initialIntervalMs: fc.integer({ min: 1, max: 60_000 }),
      backoffCoefficient: fc.double({ min: 1, max: 10, noNaN: true }),
      maximumIntervalMs: fc.integer({ min: 1, max: 3_600_000 }),
      nonRetryable: fc.constant([]),
    });
    fc.assert(
      fc.property(policy, attempt, (p, n) => {
        expect(retryDelayMs(p, n + 1)).toBeGreaterThanOrEqual(retryDelayMs(p, n));
        expect(retryDelayMs(p, n)).toBeLessThanOrEqual(p.maximumIntervalMs);
      }),
    );
  });

  it('drops an effect at the first non-retryable error, whatever the attempt', () => {
    fc.assert(
      fc.property(kind, attempt, (name, n) => {
        for (const errorKind of RETRY_POLICIES[name].nonRetryable) {
          for (const code of codesOfKind(errorKind))
            expect(decideRetry(SAMPLES[name], n, new EngineError(code, 'gone'))).toEqual({ action: 'drop' });
        }
      }),
    );
  });

  it('retries any other error until the kind has a maximum and it is reached, then gives up', () => {
    const error = fc.oneof(
      fc.constantFrom(...ENGINE_CODES).map((code) => new EngineError(code, 'boom')),
      fc.string().map((message) => new Error(message)),
    );
    fc.assert(
      fc.property(kind, attempt, error, (name, n, failure) => {
        const policy = RETRY_POLICIES[name];
        fc.pre(!(failure instanceof EngineError && policy.nonRetryable.includes(failure.kind)));
        const decision = decideRetry(SAMPLES[name], n, failure);
        const expected = policy.maximumAttempts !== undefined && n >= policy.maximumAttempts ? 'giveUp' : 'retry';
        expect(decision.action).toBe(expected);
        if (decision.action !== 'drop') expect(decision.delayMs).toBe(retryDelayMs(policy, n));
      }),
    );
  });
});
