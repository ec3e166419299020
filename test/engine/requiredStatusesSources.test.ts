/** The three sources of required statuses and their precedence: API over repository file over branch protection. */
import { describe, expect, test } from 'vitest';
import { effectiveRequiredStatuses, newQueue } from '../../engine/model/queues.js';

const fields = {
  id: 'q1',
  org: 'acme',
  repo: { host: 'github.com', owner: 'acme', name: 'widgets' },
  branch: 'main',
  now: '2026-11-22T12:00:00.000Z',
};

describe('required statuses', () => {
  test('branch protection applies when neither the API nor the repository file sets a list', () => {
    const queue = newQueue(fields, {});
    expect(effectiveRequiredStatuses(queue)).toEqual({ statuses: [], source: undefined });
    queue.branchProtection = { sha: 'a'.repeat(40), requiredStatuses: ['build'] };
    expect(effectiveRequiredStatuses(queue)).toEqual({
      statuses: ['build'],
      source: 'repo_provider_branch_protection',
    });
    queue.repositoryConfig = { sha: 'a'.repeat(40), requiredStatuses: null };
    expect(effectiveRequiredStatuses(queue).source).toBe('repo_provider_branch_protection');
    queue.repositoryConfig = { sha: 'a'.repeat(40), requiredStatuses: ['test'] };
    expect(effectiveRequiredStatuses(queue)).toEqual({ statuses: ['test'], source: 'service_config' });
    queue.requiredStatuses = ['api'];
    expect(effectiveRequiredStatuses(queue)).toEqual({ statuses: ['api'], source: 'merge_instance' });
  });

  test('protection that requires nothing is no list', () => {
    const queue = newQueue(fields, {});
    queue.branchProtection = { sha: 'a'.repeat(40), requiredStatuses: [] };
    expect(effectiveRequiredStatuses(queue)).toEqual({ statuses: [], source: undefined });
  });
});
