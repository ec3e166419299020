/**
 * The dashboard's "what if" runner (api/dashboardWhatIf.ts): `greenline sim --from-queue HOST/OWNER/NAME@BRANCH
 * --recommend --json` on the service's own store (its data folder, or its PostgreSQL store), in a child process at a
 * lower priority, so a fit and a recommender's search of minutes never hold up the service's event loop nor share
 * its heap. Its JSON is read into the panel's figures (web/whatIfPanel.ts). A run over its time budget, or the service
 * stopping, ends the child (by its own pid).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { WhatIfRunner } from '../api/dashboardWhatIf.js';
import type { QueueKey } from '../engine/engine.js';
import type { FittedFigure } from '../sim/fit.js';
import type { Setup } from '../sim/recommend.js';
import type { ConfigReport } from '../sim/report.js';
import type { WhatIfFigures, WhatIfResult } from '../web/whatIfPanel.js';

/** A comparison's time budget: the recommender's search on a long history takes minutes on a busy machine. */
export const WHAT_IF_BUDGET_MS = 15 * 60_000;
const OUTPUT_LIMIT = 32 * 1024 * 1024;

export interface WhatIfStore {
  dataDir: string;
  /** The PostgreSQL store's URL, when the service runs on one. */
  storeUrl?: string;
}

/** The command's entry: bin/greenline.js, from the sources (cli/) or from the compiled dist/cli. */
function entry(): string {
  for (const candidate of ['../bin/greenline.js', '../../bin/greenline.js']) {
    const path = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new Error('bin/greenline.js is missing');
}

interface SimJson {
  figures: FittedFigure[];
  recommended: { setup: Setup; settings: Record<string, unknown> };
  comparison: { configs: ConfigReport[] };
}

function figuresOf(report: ConfigReport): WhatIfFigures {
  return {
    submitted: report.submitted,
    merged: report.merged,
    mergedPerHour: report.mergedPerHour,
    p50Minutes: report.timeToMerge.p50,
    p90Minutes: report.timeToMerge.p90,
    ciRunsPerMerged: report.ciRunsPerMerged,
    ciMinutes: report.ciMinutes,
  };
}

/** The panel's figures from what `sim --from-queue --recommend --json` printed (the simulator loaded only now). */
export async function whatIfOfJson(text: string): Promise<WhatIfResult> {
  const json = JSON.parse(text) as SimJson;
  const { describeSetup } = await import('../sim/recommend.js');
  const [current, pick] = json.comparison.configs;
  if (current === undefined || pick === undefined) throw new Error('the simulator compared no two configurations');
  return {
    current: figuresOf(current),
    pick: figuresOf(pick),
    pickDescription: describeSetup(json.recommended.setup),
    pickSettings: Object.fromEntries(
      Object.entries(json.recommended.settings).filter(([, value]) => value !== undefined),
    ),
    fitted: json.figures.map(({ name, unit, value, low, high }) => ({ name, unit, value, low, high })),
    simulatedHours: current.simulatedHours,
  };
}

const stderrLines = (text: string) => text.trim().split('\n');

export function whatIfRunner(store: WhatIfStore, budgetMs = WHAT_IF_BUDGET_MS): WhatIfRunner {
  const command = entry();
  return (key: QueueKey, signal: AbortSignal) =>
    new Promise<WhatIfResult>((resolve, reject) => {
      const queue = `${key.repo.host}/${key.repo.owner}/${key.repo.name}@${key.branch}`;
      const env: NodeJS.ProcessEnv = { ...process.env, GREENLINE_DATA: store.dataDir };
      if (store.storeUrl === undefined) delete env.GREENLINE_STORE;
      else env.GREENLINE_STORE = store.storeUrl;
      const child = spawn(
        process.execPath,
        [command, 'sim', '--from-queue', queue, '--org', key.org, '--recommend', '--json'],
        {
          env,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      if (child.pid !== undefined) {
        try {
          setPriority(child.pid, 10);
        } catch {
          // Not allowed here: it runs at the service's priority.
        }
      }
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        if (stdout.length < OUTPUT_LIMIT) stdout += chunk;
      });
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        if (stderr.length < 64 * 1024) stderr += chunk;
      });
      let ended: string | undefined;
      const end = (why: string) => {
        ended ??= why;
        child.kill('SIGKILL');
      };
      const timer = setTimeout(
        () => end(`the simulation ran over its budget of ${Math.round(budgetMs / 60_000)} minutes and was stopped`),
        budgetMs,
      );
      const onAbort = () => end('the service stopped before the simulation ended');
      signal.addEventListener('abort', onAbort, { once: true });
      child.on('error', (error) => end(`the simulator could not be started: ${error.message}`));
      child.on('close', (code) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        if (ended !== undefined) return reject(new Error(ended));
        // Exit 2: the history cannot be fitted (too few PRs, no such queue, …); the command says why (`greenline: …`).
        const said = (stderrLines(stderr).findLast((line) => line.startsWith('greenline: ')) ?? '').replace(
          /^greenline: /,
          '',
        );
        if (code !== 0) return reject(new Error(said === '' ? `the simulator ended with status ${code}` : said));
        whatIfOfJson(stdout).then(resolve, (error: unknown) =>
          reject(new Error(`the simulator's answer could not be read: ${(error as Error).message}`)),
        );
      });
    });
}
