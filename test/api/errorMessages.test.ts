/**
 * The catalogue words every refusal the engine raises (engine/model/errors.ts): each code an EngineError carries has
 * its message template beside its status, and raise sites pass values only (`engineError(code, values)`).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { globSync } from 'tinyglobby';
import { describe, expect, test } from 'vitest';
import { engineError, ERRORS, errorMessage, type ErrorSpec } from '../../engine/model/errors.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('messages in the error catalogue', () => {
  test('every condition an EngineError may carry has its message template in the catalogue', () => {
    const without = Object.entries(ERRORS as Record<string, ErrorSpec>).filter(
      ([, spec]) => spec.kind !== undefined && typeof spec.message !== 'function',
    );
    expect(without.map(([code]) => code)).toEqual([]);
  });

  test('the template makes the message of the values a raise site passes', () => {
    expect(errorMessage('pr_not_queued', { number: 7 })).toBe('pull request #7 is not in the queue');
    expect(errorMessage('queue_not_found', { queue: 'github.com/acme/widgets@main' })).toBe(
      'no queue for github.com/acme/widgets@main',
    );
    expect(errorMessage('queue_not_found', { queueId: 'q1', gone: true })).toBe('queue q1 no longer exists');
    expect(errorMessage('too_many_test_cases', { limit: 10 })).toBe(
      'an upload holds at most 10 test cases; this one has more',
    );
    const error = engineError('queue_not_empty', { queue: 'github.com/acme/widgets@main', enqueued: 2 });
    expect(error).toMatchObject({ code: 'queue_not_empty', kind: 'conflict' });
    expect(error.message).toBe(
      'the queue for github.com/acme/widgets@main still has 2 enqueued pull request(s): cancel or merge them first',
    );
  });

  test('no raise site of the service writes its own message', () => {
    // prepareOffThread.ts raises again, in the main thread, the error a worker raised with its catalogue message.
    const allowed = new Set(['engine/model/errors.ts', 'engine/flaky/prepareOffThread.ts']);
    const files = globSync(['{engine,api,web,cli,sim}/**/*.ts'], { cwd: root }).filter((file) => !allowed.has(file));
    const writing = files.filter((file) => /new EngineError\(/.test(readFileSync(`${root}/${file}`, 'utf8')));
    expect(writing).toEqual([]);
  });
});
