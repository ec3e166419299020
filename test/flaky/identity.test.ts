/** Test ids: UUIDv5 of (repository, file, classname, parent suite, name, variant). */
import { validate, version } from 'uuid';
import { describe, expect, test } from 'vitest';
import { testId } from '../../engine/flaky/index.js';
import { REPO } from './helpers.js';

const identity = { file: 'src/a.test.ts', classname: 'A', parent: 'suite', name: 'works', variant: '' };

describe('testId', () => {
  test('is a version 5 UUID, the same on every call', () => {
    const id = testId(REPO, identity);
    expect(validate(id)).toBe(true);
    expect(version(id)).toBe(5);
    expect(testId({ ...REPO }, { ...identity })).toBe(id);
  });

  test('is stable across releases (the namespace must never change)', () => {
    expect(testId(REPO, identity)).toBe('021640d5-f950-5996-8848-dbde361fbd45');
  });

  test('ignores the case of host, owner and repository name', () => {
    expect(testId({ host: 'GitHub.com', owner: 'ACME', name: 'Widgets' }, identity)).toBe(testId(REPO, identity));
  });

  test.each(['file', 'classname', 'parent', 'name', 'variant'] as const)('differs when %s differs', (part) => {
    expect(testId(REPO, { ...identity, [part]: `${identity[part]}x` })).not.toBe(testId(REPO, identity));
  });

  test('differs by repository, and parts cannot be shifted into each other', () => {
    expect(testId({ ...REPO, name: 'other' }, identity)).not.toBe(testId(REPO, identity));
    expect(testId(REPO, { ...identity, classname: 'A/suite', parent: '' })).not.toBe(
      testId(REPO, { ...identity, classname: 'A', parent: 'suite' }),
    );
  });
});
