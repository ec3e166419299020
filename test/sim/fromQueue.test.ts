/**
 * `greenline sim --from-queue` and `--from-log` (issue 35): a known workload simulated into a data folder (the real
 * engine on LMDB), then fitted back from the folder and from the log `greenline events` exports of it: both give the
 * same fit, the truth lies inside the reported intervals, and the written scenario runs.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { main } from '../../cli/main.js';
import { openLmdbStore } from '../../engine/store/index.js';
import { drawArrivals } from '../../sim/arrivals.js';
import { runQueue, SIM_KEY } from '../../sim/queueRun.js';
import { parseScenario, parseScenarioText } from '../../sim/scenario.js';
import { captureConsole } from '../console.js';

const truth = parseScenario({
  name: 'known',
  hours: 36,
  arrivalsPerHour: 8,
  priorityMix: { high: 1, medium: 3 },
  ci: { medianMinutes: 20, p90Minutes: 40 },
  brokenRate: 0.08,
  flakeRate: 0.03,
  configs: [{ name: 'current', concurrency: 6 }],
});
const QUEUE = `${SIM_KEY.repo.host}/${SIM_KEY.repo.owner}/${SIM_KEY.repo.name}@${SIM_KEY.branch}`;

let dir: string;
let data: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'greenline-sim-fit-'));
  data = join(dir, 'data');
  const store = openLmdbStore({ dir: data });
  try {
    await runQueue({ scenario: truth, seed: 3, settings: { concurrency: 6 }, arrivals: drawArrivals(truth, 3), store });
  } finally {
    await store.close();
  }
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** The fitted figures printed: name → [value, low, high]. */
function figuresOf(text: string): Map<string, [number, number, number]> {
  const figures = new Map<string, [number, number, number]>();
  for (const match of text.matchAll(/^ {2}(\S.*?)\s{2,}(-?[\d.]+)\s+\S*\s*\[(-?[\d.]+), (-?[\d.]+)\]/gm)) {
    figures.set((match[1] as string).trim(), [Number(match[2]), Number(match[3]), Number(match[4])]);
  }
  return figures;
}

describe('greenline sim --from-queue / --from-log', () => {
  test('fits a data folder: every rate of the truth inside its interval; the scenario written runs the current settings', async () => {
    const scenarioFile = join(dir, 'fitted.json');
    const io = captureConsole();
    expect(
      await main([
        'sim',
        '--from-queue',
        QUEUE,
        '--org',
        SIM_KEY.org,
        '--data',
        data,
        '--write-scenario',
        scenarioFile,
      ]),
    ).toBe(0);
    const text = io.out.join('\n');
    const figures = figuresOf(text);
    const expected: [string, number][] = [
      ['arrivals per hour', truth.arrivalsPerHour],
      ['CI median', truth.ci.medianMinutes],
      ['CI p90', truth.ci.p90Minutes],
      ['broken rate', truth.brokenRate],
      ['flake rate', truth.flakeRate],
      ['priority high', 0.25],
      ['priority medium', 0.75],
    ];
    for (const [name, value] of expected) {
      const figure = figures.get(name);
      expect(figure, `${name} in\n${text}`).toBeDefined();
      const [, low, high] = figure as [number, number, number];
      expect(low, name).toBeLessThanOrEqual(value);
      expect(high, name).toBeGreaterThanOrEqual(value);
    }
    expect(text).toMatch(/CI duration by run size/);
    expect(text).toMatch(/arrivals by day of the week: Mon/);
    const scenario = parseScenarioText(await readFile(scenarioFile, 'utf8'), scenarioFile);
    expect(scenario.configs).toEqual([
      expect.objectContaining({ name: 'current', concurrency: 6, mode: 'single', batch: false }),
    ]);
    expect(scenario.priorityMix).toEqual({ high: expect.any(Number), medium: expect.any(Number) });
    vi.restoreAllMocks();
    captureConsole();
    expect(await main(['sim', scenarioFile, '--json'])).toBe(0);
  });

  test('the log `greenline events` exports of the folder fits the same', async () => {
    const logFile = join(dir, 'events.jsonl');
    captureConsole();
    expect(
      await main([
        'events',
        '--repo',
        `${SIM_KEY.repo.host}/${SIM_KEY.repo.owner}/${SIM_KEY.repo.name}`,
        '--org',
        SIM_KEY.org,
        '--data',
        data,
        '--out',
        logFile,
      ]),
    ).toBe(0);
    vi.restoreAllMocks();
    const fromLog = join(dir, 'from-log.json');
    const fromQueue = join(dir, 'from-queue.json');
    captureConsole();
    expect(await main(['sim', '--from-log', logFile, '--write-scenario', fromLog])).toBe(0);
    expect(
      await main(['sim', '--from-queue', QUEUE, '--org', SIM_KEY.org, '--data', data, '--write-scenario', fromQueue]),
    ).toBe(0);
    expect(JSON.parse(await readFile(fromLog, 'utf8'))).toEqual(JSON.parse(await readFile(fromQueue, 'utf8')));
  });

  test('clear refusals: no such queue, both sources or none, a file that is no log, a scenario file besides', async () => {
    const io = captureConsole();
    expect(
      await main(['sim', '--from-queue', 'sim.invalid/sim/other@main', '--org', SIM_KEY.org, '--data', data]),
    ).toBe(2);
    expect(io.err.join('\n')).toMatch(/no queue for sim\.invalid\/sim\/other branch main in organization sim/);
    expect(await main(['sim', '--from-queue', QUEUE, '--from-log', 'x.jsonl'])).toBe(2);
    expect(io.err.join('\n')).toMatch(/give one of --from-queue/);
    const notALog = join(dir, 'not-a-log.jsonl');
    await writeFile(notALog, '{"hello": 1}\n');
    expect(await main(['sim', '--from-log', notALog])).toBe(2);
    expect(await main(['sim', '--from-log', join(dir, 'missing.jsonl')])).toBe(2);
    expect(io.err.join('\n')).toMatch(/cannot read the event log .*missing\.jsonl: ENOENT/);
    expect(await main(['sim', '--from-log', notALog, '--out', dir])).toBe(2);
    expect(io.err.join('\n')).toMatch(/--out goes with a scenario file/);
    expect(await main(['sim', 'scenario.json', '--from-log', notALog])).toBe(2);
    expect(io.err.join('\n')).toMatch(/take no scenario file/);
  });
});
