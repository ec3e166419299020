/**
 * `greenline sim --from-queue HOST/OWNER/NAME@BRANCH` (a data folder, or PostgreSQL with GREENLINE_STORE, as `serve`)
 * and `greenline sim --from-log FILE` (an exported event log: `greenline events`, `greenline sim --out`): fits the
 * workload to the queue's history (sim/fit.ts), prints it with its 95 % intervals, writes it as a scenario
 * (`--write-scenario FILE`), and with `--recommend` compares the queue's current settings with the recommender's pick
 * on it. Exit status: 0 done, 2 usage (no such queue, a log that cannot be read or fitted).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { EventLogError, parseEventLog } from '../engine/runtime/eventLog.js';
import { openLmdbStore } from '../engine/store/index.js';
import { openPostgresStore } from '../engine/store/postgresStore.js';
import type { Store } from '../engine/store/store.js';
import { drawArrivals } from '../sim/arrivals.js';
import { FitError, fitHistory, formatFit } from '../sim/fit.js';
import { HistoryError, historyOf, historyOfLog, type QueueHistory } from '../sim/history.js';
import { describeSetup, formatRecommendation, recommend, settingsOfSetup } from '../sim/recommend.js';
import { formatTable } from '../sim/reportTable.js';
import type { QueueConfig, Scenario } from '../sim/scenario.js';
import { simulate } from '../sim/simulate.js';
import type { OptionValues } from './commands.js';
import { UsageError } from './usage.js';
import { parseRepoArgument, UploadUsageError } from './upload.js';

export interface FromQueueArgs {
  fromQueue?: string;
  fromLog?: string;
  org?: string;
  dataDir: string;
  storeUrl?: string;
  writeScenario?: string;
  recommend?: boolean;
  budget?: string;
  seed?: number;
  json?: boolean;
}

/** The command line's options as fromQueueCommand takes them (the store as `serve` finds it: --data, GREENLINE_STORE). */
export function fromQueueArgs(values: OptionValues, dataDir: string, env: NodeJS.ProcessEnv): FromQueueArgs {
  if (values.out !== undefined)
    throw new UsageError(
      '--out goes with a scenario file; with --from-queue / --from-log, --write-scenario FILE writes the fitted scenario',
    );
  const seed = values.seed;
  if (seed !== undefined && !/^[0-9]{1,10}$/.test(seed))
    throw new UsageError(`--seed must be an integer from 0 to 4294967295, not "${seed}"`);
  const args: FromQueueArgs = { dataDir };
  if (values['from-queue'] !== undefined) args.fromQueue = values['from-queue'];
  if (values['from-log'] !== undefined) args.fromLog = values['from-log'];
  if (values['write-scenario'] !== undefined) args.writeScenario = values['write-scenario'];
  if (values.org !== undefined) args.org = values.org;
  if (values.budget !== undefined) args.budget = values.budget;
  if (values.recommend === true) args.recommend = true;
  if (values.json === true) args.json = true;
  if (seed !== undefined) args.seed = Number(seed);
  if (env.GREENLINE_STORE) args.storeUrl = env.GREENLINE_STORE;
  return args;
}

/** HOST/OWNER/NAME@BRANCH (or OWNER/NAME@BRANCH, host github.com; the branch defaults to main). */
export function parseQueueArgument(text: string): {
  repo: { host: string; owner: string; name: string };
  branch: string;
} {
  const at = text.lastIndexOf('@');
  const [repoText, branch] = at > 0 ? [text.slice(0, at), text.slice(at + 1)] : [text, 'main'];
  if (branch === '') throw new UsageError(`--from-queue "${text}": the branch after @ is empty`);
  try {
    return { repo: parseRepoArgument(repoText), branch };
  } catch (error) {
    if (error instanceof UploadUsageError)
      throw new UsageError(`--from-queue "${text}": expected HOST/OWNER/NAME@BRANCH`);
    throw error;
  }
}

async function loadHistory(args: FromQueueArgs): Promise<{ history: QueueHistory; source: string }> {
  if (args.fromLog !== undefined) {
    let text: string;
    try {
      text = await readFile(args.fromLog, 'utf8');
    } catch (error) {
      throw new UsageError(
        `cannot read the event log ${args.fromLog}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
    return { history: historyOfLog(parseEventLog(text, args.fromLog)), source: args.fromLog };
  }
  const { repo, branch } = parseQueueArgument(args.fromQueue as string);
  const postgres = args.storeUrl !== undefined && /^postgres(ql)?:\/\//.test(args.storeUrl);
  const store: Store = postgres
    ? openPostgresStore({ url: args.storeUrl as string, applicationName: 'greenline-sim' })
    : openLmdbStore({ dir: args.dataDir });
  try {
    return {
      history: historyOf(store, { org: args.org ?? 'default', repo, branch }),
      source: postgres ? 'the PostgreSQL store' : args.dataDir,
    };
  } finally {
    await store.close();
  }
}

function configOfPatch(name: string, settings: ReturnType<typeof settingsOfSetup>): QueueConfig {
  const config: Record<string, unknown> = { name };
  for (const [key, value] of Object.entries(settings))
    if (value !== undefined && !(key === 'pendingFailureDepth' && value === 0)) config[key] = value;
  return config as QueueConfig;
}

export async function fromQueueCommand(args: FromQueueArgs): Promise<number> {
  if ((args.fromQueue === undefined) === (args.fromLog === undefined))
    throw new UsageError('give one of --from-queue HOST/OWNER/NAME@BRANCH and --from-log FILE');
  const budget = args.budget === undefined ? undefined : Number(args.budget);
  if (budget !== undefined && !(Number.isFinite(budget) && budget >= 1 && budget <= 1000)) {
    throw new UsageError(`--budget must be a number of CI runs per merge from 1 to 1000, not "${args.budget}"`);
  }
  if (args.budget !== undefined && args.recommend !== true) throw new UsageError('--budget goes with --recommend');
  let fitted: ReturnType<typeof fitHistory>;
  let source: string;
  try {
    const loaded = await loadHistory(args);
    source = loaded.source;
    fitted = fitHistory(
      loaded.history,
      `fitted from ${loaded.history.key.repo.host}/${loaded.history.key.repo.owner}/${loaded.history.key.repo.name}@${loaded.history.key.branch}`.slice(
        0,
        128,
      ),
    );
  } catch (error) {
    if (error instanceof HistoryError || error instanceof FitError || error instanceof EventLogError)
      throw new UsageError(error.message);
    throw error;
  }
  const scenario: Scenario = args.seed === undefined ? fitted.scenario : { ...fitted.scenario, seed: args.seed };
  if (args.json !== true) {
    console.log(`History: ${source}`);
    console.log(formatFit(fitted));
  }
  if (args.writeScenario !== undefined) {
    await writeFile(args.writeScenario, `${JSON.stringify(scenario, null, 2)}\n`);
    console.error(`wrote the fitted scenario to ${args.writeScenario}`);
  }
  if (args.recommend !== true) {
    if (args.json === true)
      console.log(
        JSON.stringify(
          {
            figures: fitted.figures,
            durationsBySize: fitted.durationsBySize,
            weekdays: fitted.weekdays,
            notes: fitted.notes,
            scenario,
          },
          null,
          2,
        ),
      );
    return 0;
  }
  const recommendation = await recommend(scenario, drawArrivals(scenario, scenario.seed), scenario.seed, budget);
  const pick = configOfPatch('recommended', settingsOfSetup(recommendation.best.setup));
  const current = scenario.configs[0] as QueueConfig;
  const comparison = await simulate({ ...scenario, configs: [current, pick] });
  if (args.json === true) {
    console.log(
      JSON.stringify(
        {
          figures: fitted.figures,
          scenario,
          recommended: { setup: recommendation.best.setup, settings: settingsOfSetup(recommendation.best.setup) },
          comparison: comparison.report,
        },
        null,
        2,
      ),
    );
    return 0;
  }
  console.log(`\n${formatRecommendation(recommendation, budget)}`);
  console.log(
    `\nCurrent settings against the pick (${describeSetup(recommendation.best.setup)}) on the fitted workload:`,
  );
  console.log(formatTable(comparison.report));
  const [now, then] = comparison.report.configs;
  if (now !== undefined && then !== undefined && now.timeToMerge.p50 !== null && then.timeToMerge.p50 !== null) {
    console.log(
      `what if: P50 ${now.timeToMerge.p50.toFixed(1)} → ${then.timeToMerge.p50.toFixed(1)} min (${(then.timeToMerge.p50 / now.timeToMerge.p50).toFixed(2)}× of the current)), CI runs per merge ${now.ciRunsPerMerged?.toFixed(2) ?? '-'} → ${then.ciRunsPerMerged?.toFixed(2) ?? '-'}`,
    );
  }
  return 0;
}
