/**
 * A scenario: the workload of a simulation (arrivals, CI, breakage and flakes, impacted targets) and the queue
 * configurations to compare on it. Scenario files are JSON, checked here with zod: every problem is reported with the
 * path of the field at fault, and unknown fields are errors (a misspelt setting must not pass silently).
 */
import { z } from 'zod';
import { QUEUE_MODES } from '../machines/vocabulary.js';
import {
  DIRECT_MERGE_MODES,
  MERGE_METHODS,
  OPTIMIZATION_MODES,
  PARALLEL_BASES,
  type QueuePatch,
} from '../engine/model/queues.js';

const UINT32_MAX = 4_294_967_295;
const positiveInt = z.number().int().min(1).max(UINT32_MAX);
/** A probability that cannot be 1: a scenario where every PR breaks (or every run flakes) never merges anything. */
const share = z.number().min(0).lt(1);
const weight = z.number().min(0).max(1_000_000).optional();

/** The settings of one configuration: any updateQueue setting but the queue state and its required statuses. */
export const QueueConfigSchema = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_.-]+$/, 'must be letters, digits, ".", "_" or "-"'),
  mode: z.enum(QUEUE_MODES).optional(),
  concurrency: positiveInt.optional(),
  bisectionConcurrency: positiveInt.optional(),
  testingTimeoutMinutes: positiveInt.optional(),
  pendingFailureDepth: positiveInt.optional(),
  canOptimisticallyMerge: z.boolean().optional(),
  batch: z.boolean().optional(),
  batchingMaxWaitTimeMinutes: positiveInt.optional(),
  batchingMinSize: positiveInt.optional(),
  batchingMaxSize: positiveInt.optional(),
  directMergeMode: z.enum(DIRECT_MERGE_MODES).optional(),
  optimizationMode: z.enum(OPTIMIZATION_MODES).optional(),
  mergeMethod: z.enum(MERGE_METHODS).optional(),
  adaptiveWindow: z.boolean().optional(),
  adaptiveWindowFloor: positiveInt.optional(),
  speculationRunsPercent: positiveInt.max(1000).optional(),
  parallelBases: z.enum(PARALLEL_BASES).optional(),
});
export type QueueConfig = z.infer<typeof QueueConfigSchema>;

/** The names of the baselines: a configuration may not take them (they name report rows, chart series and files). */
export const RESERVED_NAMES = ['oracle', 'singleQueue'] as const;

export const DEFAULT_SATURATION_DEPTH = 500;

/**
 * What is wrong with a list of configuration names: a baseline's name, or a name already taken. Names are compared
 * ignoring case, as they name event log files and some file systems ignore case.
 */
export function configNameProblems(names: readonly string[]): { index: number; message: string }[] {
  const problems: { index: number; message: string }[] = [];
  const seen = new Set<string>();
  names.forEach((name, index) => {
    const folded = name.toLowerCase();
    const reserved = RESERVED_NAMES.find((baseline) => baseline.toLowerCase() === folded);
    if (reserved !== undefined)
      problems.push({
        index,
        message: `"${name}" is the name of a baseline (${RESERVED_NAMES.join(', ')}): choose another`,
      });
    else if (seen.has(folded))
      problems.push({ index, message: `duplicate configuration name "${name}" (names are compared ignoring case)` });
    seen.add(folded);
  });
  return problems;
}

export const PRIORITY_NAMES = ['urgent', 'high', 'medium', 'low'] as const;
export type PriorityName = (typeof PRIORITY_NAMES)[number];

export const ScenarioSchema = z
  .strictObject({
    name: z.string().min(1).max(128),
    /** Default seed; `--seed` overrides it. */
    seed: z.number().int().min(0).max(UINT32_MAX).default(1),
    /** PRs arrive during this many hours. */
    hours: z
      .number()
      .positive()
      .max(24 * 366),
    /** After the last arrival, the queue runs on until it is empty or this many hours have passed. */
    drainHours: z
      .number()
      .min(0)
      .max(24 * 366)
      .default(24),
    /** Mean arrival rate (Poisson); with a daily cycle, the mean over a day. */
    arrivalsPerHour: z.number().positive().max(100_000),
    /** Arrivals follow the day: rate × (1 + amplitude × cos(2π (hour − peakHour) / 24)), hours in UTC. */
    dailyCycle: z
      .strictObject({
        amplitude: z.number().min(0).max(1),
        peakHour: z.number().min(0).lt(24).default(14),
      })
      .optional(),
    /** Shares of each priority among arrivals (normalised); PRs are submitted with the default priority when absent. */
    priorityMix: z
      .strictObject({ urgent: weight, high: weight, medium: weight, low: weight })
      .refine(
        (mix) => Object.values(mix).some((weight) => (weight ?? 0) > 0),
        'at least one priority needs a positive share',
      )
      .optional(),
    /** CI duration of one run: log-normal with this median and 90th percentile (equal: a constant duration). */
    ci: z
      .strictObject({
        medianMinutes: z.number().positive().max(10_000),
        p90Minutes: z.number().positive().max(10_000),
      })
      .refine((ci) => ci.p90Minutes >= ci.medianMinutes, {
        message: 'must be at least medianMinutes',
        path: ['p90Minutes'],
      }),
    /** Share of PRs that truly break the build: every run containing one fails. */
    brokenRate: share,
    /** Chance that any run fails spuriously. */
    flakeRate: share,
    /** Impacted targets per PR (parallel mode): `perPr` targets drawn with a Zipf skew among `count`, or ALL. */
    targets: z
      .strictObject({
        count: positiveInt,
        perPr: z.number().int().min(0).max(100_000),
        allShare: z.number().min(0).max(1).default(0),
        /** Zipf exponent: target k (from 0) is drawn with weight 1 / (k + 1)^skew; 0 is uniform. */
        skew: z.number().min(0).max(10).default(1),
      })
      .refine((targets) => targets.perPr <= targets.count, { message: 'must be at most count', path: ['perPr'] })
      .optional(),
    /**
     * PRs get features that predict their failure, as a git host reports them: an author (broken PRs come from the
     * first `riskyAuthors` of `authors` with probability `riskyShare`) and changed lines (log-normal, median 60; a
     * broken PR's median is multiplied by `sizeFactor`). Absent: every PR is by "sim", with no size.
     */
    predictiveFeatures: z
      .strictObject({
        authors: positiveInt.max(10_000).default(20),
        riskyAuthors: positiveInt.max(10_000).default(2),
        riskyShare: z.number().min(0).max(1).default(0.5),
        sizeFactor: z.number().min(1).max(100).default(4),
      })
      .refine((features) => features.riskyAuthors <= features.authors, {
        message: 'must be at most authors',
        path: ['riskyAuthors'],
      })
      .optional(),
    /**
     * A queue holding more PRs than this is saturated: it cannot keep up, and its simulation stops there (the cost of
     * an engine event grows with the depth of the queue). Its row says `saturated: true`.
     */
    saturationDepth: z.number().int().min(1).max(1_000_000).default(DEFAULT_SATURATION_DEPTH),
    configs: z.array(QueueConfigSchema).min(1).max(64),
  })
  .superRefine((scenario, ctx) => {
    configNameProblems(scenario.configs.map((config) => config.name)).forEach(({ index, message }) => {
      ctx.addIssue({ code: 'custom', path: ['configs', index, 'name'], message });
    });
    scenario.configs.forEach((config, index) => {
      if (config.mode === 'parallel' && scenario.targets === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['configs', index, 'mode'],
          message: 'parallel mode needs the scenario\'s "targets"',
        });
      }
    });
  });

export type Scenario = z.infer<typeof ScenarioSchema>;
/** A scenario as written, before defaults. */
export type ScenarioInput = z.input<typeof ScenarioSchema>;

export class ScenarioError extends Error {
  constructor(
    message: string,
    readonly issues: { path: string; message: string }[] = [],
  ) {
    super(message);
    this.name = 'ScenarioError';
  }
}

function pathOf(path: readonly PropertyKey[]): string {
  let text = '';
  for (const part of path) text += typeof part === 'number' ? `[${part}]` : `${text === '' ? '' : '.'}${String(part)}`;
  return text === '' ? '(scenario)' : text;
}

/** Checks a parsed JSON value; throws ScenarioError naming each field at fault. */
export function parseScenario(value: unknown, source = 'scenario'): Scenario {
  const parsed = ScenarioSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => ({ path: pathOf(issue.path), message: issue.message }));
  throw new ScenarioError(
    `${source} is not a valid scenario:\n${issues.map((issue) => `  ${issue.path}: ${issue.message}`).join('\n')}`,
    issues,
  );
}

/** Parses scenario JSON text. */
export function parseScenarioText(text: string, source = 'scenario'): Scenario {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ScenarioError(`${source} is not JSON: ${(error as Error).message}`);
  }
  return parseScenario(value, source);
}

/** The updateQueue settings of a configuration (its name aside). */
export function settingsOf(config: QueueConfig): QueuePatch {
  const { name: _name, ...settings } = config;
  return settings;
}
