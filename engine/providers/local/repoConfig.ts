/**
 * The repository configuration file, `.greenline.yaml` at the root of the target branch:
 *
 * ```yaml
 * required_statuses: [build, test]     # source service_config; statuses set through the API override it
 * ci:                                  # the built-in runner (GREENLINE_LOCAL_CI=1): status name → shell command
 *   build: npm ci && npm run build
 *   test: npm test
 * ```
 *
 * Unknown keys are ignored (room for later settings); a key of the wrong shape makes the file invalid.
 */
import { parse } from 'yaml';
import { z } from 'zod';
import { describeIssues } from '../../validationMessages.js';

export const REPO_CONFIG_FILE = '.greenline.yaml';

const StatusName = z.string().trim().min(1).max(255);

const RepoConfigSchema = z
  .object({
    required_statuses: z.array(StatusName).optional(),
    ci: z.record(StatusName, z.string().trim().min(1)).optional(),
  })
  .loose();

export interface RepoConfig {
  /** null when the file sets none. */
  requiredStatuses: string[] | null;
  /** Status name → shell command, in the file's order. */
  ci: [string, string][];
}

export const EMPTY_REPO_CONFIG: RepoConfig = Object.freeze({ requiredStatuses: null, ci: [] }) as RepoConfig;

export class RepoConfigError extends Error {}

/** Parses the file's text; throws RepoConfigError naming the problem. */
export function parseRepoConfig(text: string): RepoConfig {
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    throw new RepoConfigError(
      `${REPO_CONFIG_FILE} is not valid YAML: ${(error as Error).message.split('\n')[0] ?? ''}`,
    );
  }
  if (document === null || document === undefined) return EMPTY_REPO_CONFIG;
  const parsed = RepoConfigSchema.safeParse(document);
  if (!parsed.success) {
    const problems = describeIssues(parsed.error.issues);
    throw new RepoConfigError(`${REPO_CONFIG_FILE} is invalid: ${problems}`);
  }
  return {
    requiredStatuses: parsed.data.required_statuses === undefined ? null : [...new Set(parsed.data.required_statuses)],
    ci: Object.entries(parsed.data.ci ?? {}),
  };
}
