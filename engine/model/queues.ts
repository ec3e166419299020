/**
 * Queue configuration: the settings of spec 2.2, their documented defaults, and how an update applies. Pure
 * functions; the engine stores the result.
 */
import type { QueueMode, QueueState, RequestableQueueState } from '../../machines/vocabulary.js';
import { largestBatch } from '../planner/batches.js';
import type { BisectionMemory } from '../planner/bisectionMemory.js';
import type { VerdictCounts } from '../planner/window.js';
import type { LikelihoodModel } from './likelihoodModel.js';

export {
  adaptiveWindowFloorOf,
  adaptWindow,
  DEFAULT_SPECULATION_RUNS_PERCENT,
  mainWindowOf,
  speculationAllowance,
} from './queueWindow.js';

export interface RepoRef {
  host: string;
  owner: string;
  name: string;
}

export const DIRECT_MERGE_MODES = ['off', 'always'] as const;
export type DirectMergeMode = (typeof DIRECT_MERGE_MODES)[number];
export const OPTIMIZATION_MODES = ['off', 'bisection_skip_redundant_tests', 'speculate_by_likelihood'] as const;
export type OptimizationMode = (typeof OPTIMIZATION_MODES)[number];
/**
 * Parallel mode: what a PR is tested on top of. `transitive` (the default): the PRs ahead whose targets overlap its
 * own, and what those depend on. `direct`: only the PRs ahead whose targets overlap its own (a failure then resets
 * only the runs that overlap the failed PR, not everything downstream of it).
 */
export const PARALLEL_BASES = ['transitive', 'direct'] as const;
export type ParallelBases = (typeof PARALLEL_BASES)[number];
export const MERGE_METHODS = ['merge_commit', 'squash', 'rebase'] as const;
export type MergeMethod = (typeof MERGE_METHODS)[number];
export const REQUIRED_STATUSES_SOURCES = [
  'service_config',
  'repo_provider_branch_protection',
  'merge_instance',
] as const;
export type RequiredStatusesSource = (typeof REQUIRED_STATUSES_SOURCES)[number];

/**
 * How the queue meets people on the git host, beyond comments and the status check: the hosted service's browser
 * extension, label commands (applying `enqueueingLabel` to a PR submits it, removing it cancels) and state labels
 * (a label on each PR naming its queue state). Greenline stores and returns them so that clients that manage queues
 * (the Terraform provider) read back what they set. In GitHub mode the webhook receiver acts on label commands and the
 * engine keeps state labels (the `stateLabel` effect); the local git host has no labels.
 */
export interface IntegrationSettings {
  extensionEnabled: boolean;
  /** '' is no label. */
  enqueueingLabel: string;
  labelCommandsEnabled: boolean;
  stateLabelsEnabled: boolean;
}

export const DEFAULT_INTEGRATION_SETTINGS: Readonly<IntegrationSettings> = Object.freeze({
  extensionEnabled: false,
  enqueueingLabel: 'greenline-merge',
  labelCommandsEnabled: false,
  stateLabelsEnabled: false,
});

/** Every setting a client may change with updateQueue, apart from state and the required statuses. */
export interface QueueSettings extends Partial<IntegrationSettings> {
  mode: QueueMode;
  concurrency: number;
  testingTimeoutMinutes: number;
  canOptimisticallyMerge: boolean;
  /** 0 is off (the documented default); the API accepts 1..4294967295. */
  pendingFailureDepth: number;
  batch: boolean;
  batchingMaxWaitTimeMinutes: number;
  /** The PRs a batch waits for (or `batchingMaxWaitTimeMinutes`) before it starts. */
  batchingMinSize: number;
  /**
   * The largest batch: a batch that starts takes the ready PRs of its chain up to this many, so batches grow under a
   * backlog (engine/planner/starts.ts). Absent, or below `batchingMinSize`: `batchingMinSize` (planner/batches.ts).
   */
  batchingMaxSize?: number;
  createPrsForTestingBranches: boolean;
  commentsEnabled: boolean;
  commandsEnabled: boolean;
  statusCheckEnabled: boolean;
  /**
   * The CI slots the queue holds beyond the main line's `concurrency`: one pool of `concurrency` + this many slots,
   * of which the main line takes at most `concurrency` and bisections any that is free, before new main-line work
   * (engine/planner/starts.ts). Absent until set: then it follows `concurrency`, as the documented default "equal to
   * concurrency" says.
   */
  bisectionConcurrency?: number;
  directMergeMode: DirectMergeMode;
  optimizationMode: OptimizationMode;
  mergeMethod: MergeMethod;
  /**
   * Adaptive window (as Zuul's): the main-line runs in flight grow by one on each passing run and halve on each
   * failure, between `adaptiveWindowFloor` and `concurrency`, but not below the depth the queue's failure rate makes
   * useful (engine/planner/window.ts). Absent (queues stored before it existed) is off.
   */
  adaptiveWindow?: boolean;
  /** The least the adaptive window shrinks to (at least 1, at most `concurrency`); absent is 1. */
  adaptiveWindowFloor?: number;
  /** `speculate_by_likelihood`: extra runs allowed, in percent of the PRs submitted (plus one); absent is 10. */
  speculationRunsPercent?: number;
  /** Parallel mode: `transitive` (absent) or `direct` bases (see PARALLEL_BASES). */
  parallelBases?: ParallelBases;
}

/** The defaults of a new queue, as the hosted service documents them (addendum). */
export const DEFAULT_SETTINGS: Readonly<QueueSettings> = Object.freeze({
  mode: 'single',
  concurrency: 1,
  testingTimeoutMinutes: 300,
  canOptimisticallyMerge: false,
  pendingFailureDepth: 0,
  batch: false,
  batchingMaxWaitTimeMinutes: 5,
  batchingMinSize: 4,
  createPrsForTestingBranches: false,
  commentsEnabled: true,
  commandsEnabled: true,
  statusCheckEnabled: true,
  directMergeMode: 'off',
  optimizationMode: 'off',
  mergeMethod: 'merge_commit',
  ...DEFAULT_INTEGRATION_SETTINGS,
});

/**
 * The integration settings in force. Queues stored before these settings existed have none of them, and read the
 * defaults (the fields are optional in `QueueSettings` for that reason).
 */
export function integrationSettingsOf(settings: QueueSettings): IntegrationSettings {
  return {
    extensionEnabled: settings.extensionEnabled ?? DEFAULT_INTEGRATION_SETTINGS.extensionEnabled,
    enqueueingLabel: settings.enqueueingLabel ?? DEFAULT_INTEGRATION_SETTINGS.enqueueingLabel,
    labelCommandsEnabled: settings.labelCommandsEnabled ?? DEFAULT_INTEGRATION_SETTINGS.labelCommandsEnabled,
    stateLabelsEnabled: settings.stateLabelsEnabled ?? DEFAULT_INTEGRATION_SETTINGS.stateLabelsEnabled,
  };
}

export interface QueueRecord {
  id: string;
  org: string;
  repo: RepoRef;
  branch: string;
  state: QueueState;
  settings: QueueSettings;
  /** The list set through the API (source `merge_instance`); null when none is set. */
  requiredStatuses: string[] | null;
  /**
   * What the repository configuration file on the target branch requires (source `service_config`), as the git
   * host last reported it for the head `sha`; absent until a host that reads one reports it.
   */
  repositoryConfig?: { sha: string; requiredStatuses: string[] | null };
  /** What the git host's branch protection requires on the target branch (source `repo_provider_branch_protection`). */
  branchProtection?: { sha: string; requiredStatuses: string[] };
  createdAt: string;
  updatedAt: string;
  runtime: QueueRuntime;
  /**
   * Where the event log starts, once retention cut it: the events below `seq` older than `before` are deleted, but
   * for settings changes (`created`, `configured`), which are kept. Absent: the log is whole.
   */
  eventsFrom?: { seq: number; before: string };
}

/** The engine's working state of a queue, kept with its record and changed in the same transactions. */
export interface QueueRuntime {
  /** Ready PRs in queue order. */
  lineup: number[];
  /** NOT_READY PRs, in submission order. */
  waiting: number[];
  activeRuns: string[];
  /** The target branch head as far as the engine knows ('' until the git host told it). */
  targetHead: string;
  /** PRs merged while results that mention them may still be in play. */
  merged: number[];
  /** Per bisection: the PR sets that failed in it, the PRs merged since it began, the groups waiting for another. */
  bisections: Record<string, BisectionMemory>;
  /** The failure-likelihood model, trained on this queue's resolved PRs (created with the first one). */
  likelihood?: LikelihoodModel;
  /** PRs isolated by speculation by likelihood (each may cost one extra run). */
  speculated?: number;
  /** The adaptive window (see QueueSettings.adaptiveWindow) as the main line's runs left it; absent is `concurrency`. */
  window?: number;
  /** With the adaptive window: its main-line verdicts and failures (decayed), for the failure rate it sizes itself by. */
  windowVerdicts?: VerdictCounts;
  /** How many merged PRs and bisections the last tidy kept: the next one is due once there are twice as many. */
  tidied?: number;
  /** The queue policy it was created under (model/policy.ts); absent: 1. */
  policy?: number;
  counters: {
    run: number;
    entry: number;
    submission: number;
    event: number;
    timeline: number;
    bisection: number;
    group: number;
    effect: number;
  };
}

export function newRuntime(): QueueRuntime {
  return {
    lineup: [],
    waiting: [],
    activeRuns: [],
    targetHead: '',
    merged: [],
    bisections: {},
    counters: { run: 0, entry: 0, submission: 0, event: 0, timeline: 0, bisection: 0, group: 0, effect: 0 },
  };
}

/**
 * What updateQueue (and createQueue) may carry, already validated. A setting sent as `null` goes back to its
 * default (`mode` has no null: `single` is one request away).
 */
export type SettingsPatch = { [K in keyof QueueSettings]?: QueueSettings[K] | (K extends 'mode' ? never : null) };
export interface QueuePatch extends SettingsPatch {
  state?: RequestableQueueState;
  requiredStatuses?: string[];
  deleteRequiredStatuses?: boolean;
}

/**
 * The required statuses in force and where they come from: the API's list (`merge_instance`) over the repository
 * configuration file (`service_config`) over the git host's branch protection (`repo_provider_branch_protection`).
 */
export function effectiveRequiredStatuses(queue: QueueRecord): {
  statuses: string[];
  source: RequiredStatusesSource | undefined;
} {
  if (queue.requiredStatuses !== null) return { statuses: queue.requiredStatuses, source: 'merge_instance' };
  const fromFile = queue.repositoryConfig?.requiredStatuses;
  if (fromFile !== undefined && fromFile !== null) return { statuses: fromFile, source: 'service_config' };
  const fromProtection = queue.branchProtection?.requiredStatuses;
  if (fromProtection !== undefined && fromProtection.length > 0)
    return { statuses: fromProtection, source: 'repo_provider_branch_protection' };
  return { statuses: [], source: undefined };
}

export function bisectionConcurrencyOf(settings: QueueSettings): number {
  return settings.bisectionConcurrency ?? settings.concurrency;
}

/** The largest batch (see QueueSettings.batchingMaxSize) as getQueue reports it: within the API's integers. */
export function batchingMaxSizeOf(queue: Pick<QueueRecord, 'settings' | 'runtime'>): number {
  return Math.min(UINT32_MAX, largestBatch(queue.settings));
}

const UINT32_MAX = 4_294_967_295;

/**
 * Applies a patch's settings and required statuses to a queue: only the fields sent change. The state it asks for is
 * not among them: the queue machine moves the queue (the 'created' and 'configured' inputs send its events).
 */
export function applyPatch(queue: QueueRecord, patch: Omit<QueuePatch, 'state'>, now: string): QueueRecord {
  const { requiredStatuses, deleteRequiredStatuses, ...settingsPatch } = patch;
  const settings: QueueSettings = { ...queue.settings };
  const writable = settings as unknown as Record<string, unknown>;
  for (const [name, value] of Object.entries(settingsPatch) as [keyof QueueSettings, unknown][]) {
    if (value === undefined) continue;
    if (value !== null) writable[name] = value;
    // Back to the default: the documented value, or absent where absent is the default (bisectionConcurrency
    // follows concurrency again).
    else if (DEFAULT_SETTINGS[name] !== undefined) writable[name] = DEFAULT_SETTINGS[name];
    else delete writable[name];
  }
  let statuses = queue.requiredStatuses;
  if (deleteRequiredStatuses === true) statuses = null;
  if (requiredStatuses !== undefined) statuses = [...new Set(requiredStatuses)];
  return { ...queue, settings, requiredStatuses: statuses, updatedAt: now };
}

export function newQueue(
  fields: { id: string; org: string; repo: RepoRef; branch: string; now: string },
  patch: Omit<QueuePatch, 'state'>,
): QueueRecord {
  const blank: QueueRecord = {
    id: fields.id,
    org: fields.org,
    repo: { ...fields.repo },
    branch: fields.branch,
    state: 'running',
    settings: { ...DEFAULT_SETTINGS },
    requiredStatuses: null,
    createdAt: fields.now,
    updatedAt: fields.now,
    runtime: newRuntime(),
  };
  return applyPatch(blank, patch, fields.now);
}
