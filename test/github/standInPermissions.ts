/**
 * What an installation token may do, as GitHub decides it: each operation the stand-in answers needs one of the
 * permissions below (GitHub's "Permissions required for GitHub Apps"; `write` covers `read`), and a token without it
 * is answered 403 "Resource not accessible by integration". A ref update (a created or moved branch, a merge) that
 * creates, changes or deletes a file under `.github/workflows/` also needs `workflows: write`, as GitHub refuses it
 * otherwise. The stand-in's installation is granted the App manifest's permissions (engine/providers/github/manifest.ts).
 */
import type { Answer } from './standInAnswers.js';
import type { Files } from './gitModel.js';

type Level = 'read' | 'write';
type Need = [permission: string, level: Level];

/** Operation id → the permissions that each allow it (any one does). */
const NEEDS: Record<string, Need[]> = {
  'git/get-commit': [['contents', 'read']],
  'git/create-commit': [['contents', 'write']],
  'git/create-ref': [['contents', 'write']],
  'git/update-ref': [['contents', 'write']],
  'git/delete-ref': [['contents', 'write']],
  'repos/merge': [['contents', 'write']],
  'repos/compare-commits-with-basehead': [['contents', 'read']],
  'repos/get-branch': [['contents', 'read']],
  'repos/get-content': [['contents', 'read']],
  'repos/get-branch-rules': [['metadata', 'read']],
  'repos/get-collaborator-permission-level': [['metadata', 'read']],
  'repos/get-pull-request-review-protection': [['administration', 'read']],
  'repos/create-commit-status': [['statuses', 'write']],
  'issues/list-comments': [
    ['issues', 'read'],
    ['pull_requests', 'read'],
  ],
  'issues/create-comment': [
    ['issues', 'write'],
    ['pull_requests', 'write'],
  ],
  'issues/update-comment': [
    ['issues', 'write'],
    ['pull_requests', 'write'],
  ],
  'issues/list-labels-on-issue': [
    ['issues', 'read'],
    ['pull_requests', 'read'],
  ],
  'issues/add-labels': [
    ['issues', 'write'],
    ['pull_requests', 'write'],
  ],
  'issues/remove-label': [
    ['issues', 'write'],
    ['pull_requests', 'write'],
  ],
  'pulls/get': [['pull_requests', 'read']],
  'pulls/list': [['pull_requests', 'read']],
  'pulls/list-reviews': [['pull_requests', 'read']],
  'pulls/create': [['pull_requests', 'write']],
  'pulls/update': [['pull_requests', 'write']],
  'pulls/merge': [['contents', 'write']],
  'checks/create': [['checks', 'write']],
  'checks/update': [['checks', 'write']],
  'checks/list-for-ref': [['checks', 'read']],
};

/** The operations that move a ref: GitHub checks what they do to workflow files. */
export const REF_UPDATES = new Set(['git/create-ref', 'git/update-ref', 'repos/merge', 'pulls/merge']);

const covers = (granted: string | undefined, level: Level) =>
  granted === 'write' || (granted === 'read' && level === 'read');

/** Why the token's permissions do not allow the operation (undefined when they do, or when it needs none). */
export function missingPermission(
  operationId: string,
  permissions: Record<string, string>,
): Answer | 'unknown' | undefined {
  const needs = NEEDS[operationId];
  if (needs === undefined) return 'unknown';
  if (needs.some(([name, level]) => covers(permissions[name], level))) return undefined;
  return {
    status: 403,
    body: { message: 'Resource not accessible by integration', documentation_url: 'https://docs.github.com/rest' },
    githubWide: true,
  };
}

/** The workflow files a ref update from `before` to `after` creates, changes or deletes. */
export function workflowChanges(before: Files, after: Files): string[] {
  const names = new Set(
    [...Object.keys(before), ...Object.keys(after)].filter((name) => name.startsWith('.github/workflows/')),
  );
  return [...names].filter((name) => before[name] !== after[name]).sort();
}

/** GitHub's refusal of a ref update that touches workflows without `workflows: write`. */
export function workflowRefusal(
  status: number,
  files: string[],
  permissions: Record<string, string>,
): Answer | undefined {
  if (files.length === 0 || permissions.workflows === 'write') return undefined;
  return {
    status,
    body: {
      message: `refusing to allow a GitHub App to create or update workflow \`${files[0]}\` without \`workflows\` permission`,
      documentation_url: 'https://docs.github.com/rest',
    },
  };
}
