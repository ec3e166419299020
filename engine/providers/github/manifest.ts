/**
 * The GitHub App's manifest: the permissions and events Greenline needs (docs/github.md shows it, and a test keeps
 * the two the same). What each permission is for:
 *
 * - `contents: write`: test branches (refs, commits, merges), moving the target branch, reading `.greenline.yaml`.
 * - `workflows: write`: GitHub refuses an App any ref update that creates or changes a file under
 *   `.github/workflows/` without it, so a PR that touches a workflow (Dependabot's action updates) could never merge.
 * - `pull_requests: write`: a PR's facts, Greenline's comment, closing a squashed PR, merging through the API, labels.
 * - `statuses: write`: the commit status `greenline`; the `status` events of CI.
 * - `checks: write`: the `greenline` check run on each PR's head; the `check_suite` and `check_run` events of CI.
 * - `issues: read`: the `issue_comment` events that carry commands.
 * - `metadata: read`: every App has it (branch rules, collaborators' permission).
 */
export interface AppManifest {
  name: string;
  url: string;
  hook_attributes: { url: string; active: boolean };
  public: boolean;
  default_permissions: Record<string, 'read' | 'write'>;
  default_events: string[];
}

export const APP_PERMISSIONS: Readonly<Record<string, 'read' | 'write'>> = Object.freeze({
  contents: 'write',
  workflows: 'write',
  pull_requests: 'write',
  statuses: 'write',
  checks: 'write',
  issues: 'read',
  metadata: 'read',
});

export const APP_EVENTS: readonly string[] = Object.freeze([
  'pull_request',
  'pull_request_review',
  'issue_comment',
  'check_suite',
  'check_run',
  'status',
  'push',
]);

/** The manifest for a service reached at `publicUrl` (GitHub's manifest flow, or the fields to fill in by hand). */
export function appManifest(publicUrl: string): AppManifest {
  const url = publicUrl.replace(/\/+$/, '');
  return {
    name: 'Greenline',
    url,
    hook_attributes: { url: `${url}/github/webhooks`, active: true },
    public: false,
    default_permissions: { ...APP_PERMISSIONS },
    default_events: [...APP_EVENTS],
  };
}
