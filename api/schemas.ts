/**
 * Request schemas, one per spec table (merge-queue-api.md) with the addendum's tolerance: enums in either case,
 * `pr.number` also as a string of digits, unknown fields ignored (zod objects strip them).
 */
import { z } from 'zod';
import { PULL_REQUEST_STATES, QUEUE_MODES, REQUESTABLE_QUEUE_STATES } from '../machines/vocabulary.js';
import { DIRECT_MERGE_MODES, MERGE_METHODS, OPTIMIZATION_MODES, PARALLEL_BASES } from '../engine/model/queues.js';
import { CLIENT_ALIASES, refusedClientFields } from './clientSpellings.js';
import { HOST, isPathSegment, isValidBranchName } from './nameRules.js';

export const UINT32_MAX = 4_294_967_295;
export const MAX_BODY_BYTES = 20 * 1024 * 1024;

/**
 * How an input schema that normalises before validating (a preprocess, which JSON Schema cannot express) reads in
 * the OpenAPI document: what it accepts, written as JSON Schema.
 */
export const documentedInput = z.registry<{ jsonSchema: Record<string, unknown> }>();

/** A regular expression matching `word` in any case (JSON Schema patterns have no flags). */
function anyCasePattern(words: readonly string[]): string {
  const letters = (word: string) =>
    [...word]
      .map((c) =>
        c.toLowerCase() === c.toUpperCase()
          ? c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
          : `[${c.toUpperCase()}${c.toLowerCase()}]`,
      )
      .join('');
  return `^(?:${words.map(letters).join('|')})$`;
}

/** An enum accepted in either case, answered in the spelling given (the spec's). */
export function anyCaseEnum<const T extends readonly [string, ...string[]]>(values: T, upper = false) {
  const schema = z.preprocess(
    (value) => (typeof value === 'string' ? (upper ? value.toUpperCase() : value.toLowerCase()) : value),
    z.enum(values),
  );
  documentedInput.add(schema, {
    jsonSchema: {
      type: 'string',
      pattern: anyCasePattern(values),
      description: `one of ${values.join(', ')}, in any case`,
    },
  });
  return schema;
}

export { isValidBranchName, isWellFormed } from './nameRules.js';

export const RepoSchema = z.object({
  host: z.string().min(1).max(253).regex(HOST, 'must be a host name such as github.com'),
  owner: z
    .string()
    .min(1)
    .max(255)
    .refine(
      (owner) => owner.split('/').every(isPathSegment),
      'must be letters, digits, ".", "_" or "-" (groups separated by "/"), not ending in ".git"',
    ),
  name: z
    .string()
    .min(1)
    .max(255)
    .refine(isPathSegment, 'must be letters, digits, ".", "_" or "-", not ending in ".git"'),
});

export const BranchSchema = z.string().refine(isValidBranchName, 'must be a valid git branch name');

const uint32 = z.number().int().min(1).max(UINT32_MAX);

/** A PR number: a positive integer, or a JSON string of digits (a widely used CI action sends it that way). */
export const PrNumberSchema = z.preprocess(
  (value) => (typeof value === 'string' && /^[0-9]{1,10}$/.test(value) ? Number(value) : value),
  uint32,
);
documentedInput.add(PrNumberSchema, {
  jsonSchema: {
    anyOf: [
      { type: 'integer', minimum: 1, maximum: UINT32_MAX },
      { type: 'string', pattern: '^[0-9]{1,10}$', description: 'digits of a positive integer' },
    ],
  },
});

const QueueRequest = z.object({ repo: RepoSchema, targetBranch: BranchSchema });

const StatusName = z.string().min(1).max(255);

/**
 * The settings of updateQueue (spec 4.2 table), every one optional. `null` is "back to the default": the seed's
 * ranges start at 1, so a default outside them (pendingFailureDepth 0, off) or one that follows another setting
 * (bisectionConcurrency follows concurrency) has no other way back.
 */
const settingsShape = {
  state: anyCaseEnum(REQUESTABLE_QUEUE_STATES).optional(),
  mode: anyCaseEnum(QUEUE_MODES).optional(),
  concurrency: uint32.nullish(),
  bisectionConcurrency: uint32.nullish().meta({
    description:
      'CI slots beyond concurrency: the queue runs one pool of concurrency + bisectionConcurrency slots; the main line takes at most concurrency of them, and bisections any free slot, before new main-line work (a queue created before queue policy 2 keeps a bisection pool of this many runs). Absent until set: equal to concurrency',
  }),
  testingTimeoutMinutes: uint32.nullish(),
  pendingFailureDepth: uint32.nullish(),
  canOptimisticallyMerge: z.boolean().nullish(),
  batch: z.boolean().nullish(),
  batchingMaxWaitTimeMinutes: uint32.nullish(),
  batchingMinSize: uint32.nullish().meta({
    description: 'A batch starts once this many PRs wait (or the oldest has waited batchingMaxWaitTimeMinutes)',
  }),
  batchingMaxSize: uint32.nullish().meta({
    description:
      'The largest batch: a batch that starts takes the ready PRs of its chain up to this many, so batches grow under a backlog. Absent, or below batchingMinSize: batchingMinSize (batches do not grow unless it is set)',
  }),
  commentsEnabled: z.boolean().nullish(),
  commandsEnabled: z.boolean().nullish(),
  createPrsForTestingBranches: z.boolean().nullish(),
  directMergeMode: anyCaseEnum(DIRECT_MERGE_MODES).nullish(),
  optimizationMode: anyCaseEnum(OPTIMIZATION_MODES).nullish(),
  mergeMethod: anyCaseEnum(MERGE_METHODS).nullish(),
  adaptiveWindow: z.boolean().nullish(),
  adaptiveWindowFloor: uint32.nullish(),
  speculationRunsPercent: uint32.nullish(),
  parallelBases: anyCaseEnum(PARALLEL_BASES).nullish(),
  statusCheckEnabled: z.boolean().nullish(),
  requiredStatuses: z.array(StatusName).max(100).optional(),
  deleteRequiredStatuses: z.boolean().optional(),
  extensionEnabled: z.boolean().nullish(),
  /** A GitHub label name (at most 50 characters); '' is none. */
  enqueueingLabel: z
    .string()
    .max(50)
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding (or refusing) control characters is what it is for
    .regex(/^[^\x00-\x1f\x7f]*$/, 'must not contain control characters')
    .nullish(),
  labelCommandsEnabled: z.boolean().nullish(),
  stateLabelsEnabled: z.boolean().nullish(),
};

/** The older spellings a known client sends (clientSpellings.ts), validated as the settings they stand for. */
const aliasShape = {
  testingTimeoutMins: settingsShape.testingTimeoutMinutes,
  isBatching: settingsShape.batch,
  batchingMaxWaitTimeMins: settingsShape.batchingMaxWaitTimeMinutes,
} satisfies Record<keyof typeof CLIENT_ALIASES, z.ZodType>;

function noContradiction(
  body: { requiredStatuses?: string[]; deleteRequiredStatuses?: boolean },
  ctx: z.RefinementCtx,
) {
  if (body.requiredStatuses !== undefined && body.deleteRequiredStatuses === true) {
    ctx.addIssue({
      code: 'custom',
      path: ['deleteRequiredStatuses'],
      message: 'send either requiredStatuses or deleteRequiredStatuses: true, not both',
    });
  }
}

export const UpdateQueueInput = QueueRequest.extend({
  ...settingsShape,
  ...aliasShape,
  ...refusedClientFields,
}).superRefine((body, ctx) => {
  noContradiction(body, ctx);
  for (const [alias, name] of Object.entries(CLIENT_ALIASES)) {
    const given = (body as Record<string, unknown>)[alias];
    const canonical = (body as Record<string, unknown>)[name];
    if (given !== undefined && canonical !== undefined && given !== canonical) {
      ctx.addIssue({
        code: 'custom',
        path: [alias],
        message: `${alias} is an older spelling of ${name}; send one of them, or both with the same value`,
      });
    }
  }
});
export const CreateQueueInput = UpdateQueueInput;
export const QueueIdentityInput = QueueRequest;

const PRIORITY_NAMES = ['urgent', 'high', 'medium', 'low'] as const;
const PriorityInput = z.union([z.number().int().min(0).max(255), anyCaseEnum(PRIORITY_NAMES)]);

/**
 * A PR named by its number, by its head branch (`pr.branch`, resolved to the PR of that branch the queue has), or by
 * both (which must name the same PR). Submitting takes the number: a PR the queue has not seen has no known branch.
 */
const PrRef = z
  .object({ number: PrNumberSchema.optional(), branch: BranchSchema.optional() })
  .refine((pr) => pr.number !== undefined || pr.branch !== undefined, {
    message: 'name the pull request by number (or by its head branch: branch)',
    path: ['number'],
  });
const PrRequest = QueueRequest.extend({ pr: PrRef });
const SubmittedPr = z.object({ number: PrNumberSchema, branch: BranchSchema.optional() });

export const SubmitPullRequestInput = QueueRequest.extend({
  pr: SubmittedPr,
  /** null is the default priority, as the hosted service's document allows. */
  priority: PriorityInput.nullish(),
  noBatch: z.boolean().optional(),
  skipTheLine: z.boolean().optional(),
});
export const PullRequestInput = PrRequest;
export const GetSubmittedPullRequestInput = PrRequest.extend({ includeTimeline: z.boolean().optional() });

const PrState = anyCaseEnum(PULL_REQUEST_STATES, true);
const Instant = z.iso.datetime({ offset: true });

/** listPullRequests (the hosted service's): a queue's PRs, newest submission first, a page of `take` at a time. */
export const ListPullRequestsInput = QueueRequest.extend({
  /** One state or several; absent is every state. */
  state: z.union([PrState, z.array(PrState).min(1).max(PULL_REQUEST_STATES.length)]).optional(),
  /** Inclusive bounds on when PRs concluded (merged, failed, cancelled); with either, only concluded PRs are listed. */
  since: Instant.optional(),
  until: Instant.optional(),
  cursor: z.string().max(128).optional(),
  take: z.number().int().min(1).max(100).default(50),
}).superRefine((body, ctx) => {
  if (body.since !== undefined && body.until !== undefined && Date.parse(body.until) < Date.parse(body.since)) {
    ctx.addIssue({ code: 'custom', path: ['until'], message: 'until must not be before since' });
  }
});

const ALL_TARGETS = ['ALL', 'IMPACTS_ALL'] as const;
/** The most targets one setImpactedTargets may carry (the README's figure). */
export const MAX_IMPACTED_TARGETS = 100_000;
export const SetImpactedTargetsInput = QueueRequest.extend({
  pr: z
    .object({
      number: PrNumberSchema.optional(),
      branch: BranchSchema.optional(),
      /** The head SHA the targets were computed for; absent (the seed does not require it): the PR's head as the queue knows it. */
      sha: z
        .string()
        .regex(/^[0-9a-fA-F]{7,64}$/, 'must be a commit SHA (7 to 64 hex digits)')
        .optional(),
    })
    .refine((pr) => pr.number !== undefined || pr.branch !== undefined, {
      message: 'name the pull request by number (or by its head branch: branch)',
      path: ['number'],
    }),
  impactedTargets: z.union([
    z.array(z.string().min(1).max(4096)).max(MAX_IMPACTED_TARGETS),
    anyCaseEnum(ALL_TARGETS, true),
  ]),
});

export const TestingDetailsInput = z.object({
  repo: RepoSchema,
  targetBranch: BranchSchema,
  testRunId: z.string().regex(/^[A-Za-z0-9._-]{1,128}$/, 'must be a test run id (letters, digits, ".", "_" or "-")'),
});

const COMMIT_STATES = ['pending', 'success', 'failure', 'error'] as const;

/** POST /v1/setCommitStatus (ours): a CI status on a test branch's SHA. */
export const SetCommitStatusInput = z.object({
  repo: RepoSchema,
  sha: z.string().regex(/^[0-9a-fA-F]{7,64}$/, 'must be a commit SHA (7 to 64 hex digits)'),
  context: z.string().min(1).max(255),
  state: anyCaseEnum(COMMIT_STATES),
  url: z.string().max(2048).optional(),
  description: z.string().max(1024).optional(),
});

/** Query of GET /getMergeQueueMetrics: `repo` is `owner/name` and needs `repoHost`. */
export const MetricsQueryInput = z
  .object({
    // Held to the limits of RepoSchema's owner and name, as in a request body.
    repo: z
      .string()
      .max(255 + 1 + 255)
      .regex(/^[^/]+(?:\/[^/]+)*\/[^/]+$/, 'must be "owner/name"')
      .refine((repo) => {
        const at = repo.lastIndexOf('/');
        const parsed = RepoSchema.shape.owner.safeParse(repo.slice(0, at));
        return parsed.success && RepoSchema.shape.name.safeParse(repo.slice(at + 1)).success;
      }, 'must be "owner/name" with the limits of a request body (letters, digits, ".", "_" or "-"; at most 255 characters each)')
      .optional(),
    repoHost: RepoSchema.shape.host.optional(),
  })
  .superRefine((query, ctx) => {
    if (query.repo !== undefined && query.repoHost === undefined) {
      ctx.addIssue({ code: 'custom', path: ['repoHost'], message: 'repoHost is required when repo is given' });
    }
  });

export type UpdateQueueBody = z.infer<typeof UpdateQueueInput>;
export type QueueIdentityBody = z.infer<typeof QueueIdentityInput>;
