/**
 * `greenline sim SCENARIO.json [--seed N] [--json] [--out DIR]`: runs a scenario's configurations and the two
 * baselines on the real engine and prints the report (a table, or JSON). `--out DIR` also writes report.json, the
 * charts as SVG, index.html and each queue's event log (for `greenline replay`).
 * Exit status: 0 done, 1 the engine failed during the simulation (a bug), 2 usage or an invalid scenario.
 */
import { constants } from 'node:fs';
import { access, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import cliProgress from 'cli-progress';
import { renderCharts } from '../sim/charts.js';
import { indexHtml } from '../sim/chartsPage.js';
import { formatEventLog } from '../engine/runtime/eventLog.js';
import { SimulationError } from '../sim/queueRun.js';
import { formatTable } from '../sim/reportTable.js';
import { drawArrivals } from '../sim/arrivals.js';
import { formatRecommendation, recommend } from '../sim/recommend.js';
import { parseScenarioText, ScenarioError, type Scenario } from '../sim/scenario.js';
import { simulate, type Progress, type SimulatedQueue, type Simulation } from '../sim/simulate.js';
import { UsageError } from './config.js';
import { endLine } from './lines.js';

export { SIM_HELP } from './helpTexts.js';

export interface SimArgs {
  scenario: string;
  seed?: string;
  json?: boolean;
  out?: string;
  recommend?: boolean;
  budget?: string;
}

const MAX_SEED = 4_294_967_295;

function parseSeed(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[0-9]{1,10}$/.test(text) || Number(text) > MAX_SEED)
    throw new UsageError(`--seed must be an integer from 0 to ${MAX_SEED}, not "${text}"`);
  return Number(text);
}

async function loadScenario(path: string): Promise<Scenario> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(
      `cannot read the scenario ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  return parseScenarioText(text, path);
}

/** PRs to push through the engine (arrivals × queues) from which a run is long enough for a progress bar. */
const LONG_RUN = 1_000;

/** A progress bar on stderr for a long run, when stderr is a terminal. */
function progressBar(scenario: Scenario): { update: (progress: Progress) => void; stop: () => void } | undefined {
  const work = scenario.hours * scenario.arrivalsPerHour * (scenario.configs.length + 1);
  if (!process.stderr.isTTY || work < LONG_RUN) return undefined;
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: 'simulating {label} [{bar}] {percentage}% | ETA {eta_formatted}',
      hideCursor: true,
      clearOnComplete: true,
      etaBuffer: 50,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update: (progress) => {
      if (!started) {
        bar.start(progress.total, progress.done, { label: progress.label });
        started = true;
      } else bar.update(progress.done, { label: progress.label });
    },
    stop: () => {
      if (started) bar.stop();
    },
  };
}

/** Where a queue's event log goes under --out: a configuration's in events/, a baseline's in events/baselines/. */
export function eventLogFile(queue: Pick<SimulatedQueue, 'name' | 'kind'>): string {
  return queue.kind === 'config' ? `events/${queue.name}.jsonl` : `events/baselines/${queue.name}.jsonl`;
}

/**
 * Creates the output folder (and its events/ folders) and checks it can be written, before anything is simulated: a
 * path that cannot be is a usage error, not a crash after the whole simulation.
 */
export async function prepareOutputDir(dir: string): Promise<void> {
  try {
    await mkdir(join(dir, 'events', 'baselines'), { recursive: true });
    for (const folder of [dir, join(dir, 'events'), join(dir, 'events', 'baselines')])
      await access(folder, constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOTDIR' || code === 'EEXIST'
        ? 'it, or a folder it needs, is a file'
        : (code ?? (error as Error).message);
    throw new UsageError(`--out ${dir}: cannot write there (${why})`);
  }
}

/** Writes report.json, the charts, index.html and the event logs into `dir`; answers the paths written. */
export async function writeOutputs(dir: string, simulation: Simulation): Promise<string[]> {
  await prepareOutputDir(dir);
  const written: string[] = [];
  const write = async (file: string, text: string) => {
    await writeFile(join(dir, file), endLine(text));
    written.push(join(dir, file));
  };
  await write('report.json', `${JSON.stringify(simulation.report, null, 2)}\n`);
  const logs: string[] = [];
  for (const queue of simulation.queues) {
    if (queue.outcome.log === undefined) continue;
    const file = eventLogFile(queue);
    await write(file, formatEventLog(queue.outcome.log));
    logs.push(file);
  }
  const charts = await renderCharts(simulation);
  for (const chart of charts) await write(chart.file, chart.svg);
  await write('index.html', indexHtml(simulation.report, charts, logs));
  return written;
}

export async function simCommand(args: SimArgs): Promise<number> {
  const seed = parseSeed(args.seed);
  try {
    const scenario = await loadScenario(args.scenario);
    if (args.recommend === true) return await recommendCommand(scenario, seed ?? scenario.seed, args.budget);
    if (args.budget !== undefined) throw new UsageError('--budget goes with --recommend');
    const out = args.out === undefined ? undefined : resolve(args.out);
    if (out !== undefined) await prepareOutputDir(out);
    const bar = progressBar(scenario);
    let simulation: Simulation;
    try {
      simulation = await simulate(scenario, {
        ...(seed === undefined ? {} : { seed }),
        record: args.out !== undefined,
        ...(bar === undefined ? {} : { onProgress: bar.update }),
      });
    } finally {
      bar?.stop();
    }
    console.log(args.json === true ? JSON.stringify(simulation.report, null, 2) : formatTable(simulation.report));
    if (out !== undefined) {
      const written = await writeOutputs(out, simulation);
      console.error(`wrote ${written.length} files; open ${join(out, 'index.html')}`);
    }
    return 0;
  } catch (error) {
    if (error instanceof ScenarioError) {
      console.error(`greenline: ${error.message}`);
      return 2;
    }
    if (error instanceof SimulationError) {
      console.error(`greenline: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

async function recommendCommand(scenario: Scenario, seed: number, budgetText: string | undefined): Promise<number> {
  const budget = budgetText === undefined ? undefined : Number(budgetText);
  if (budget !== undefined && !(Number.isFinite(budget) && budget >= 1 && budget <= 1000)) {
    throw new UsageError(`--budget must be a number of CI runs per merge from 1 to 1000, not "${budgetText}"`);
  }
  const recommendation = await recommend(scenario, drawArrivals(scenario, seed), seed, budget);
  console.log(formatRecommendation(recommendation, budget));
  return 0;
}
