/** `greenline sim` through the command line's entry point. */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { HELP, main } from '../../cli/main.js';
import { parseEventLog, replayEventLog } from '../../engine/runtime/eventLog.js';
import { captureConsole } from '../console.js';

let dir: string;
let scenarioPath: string;

const scenario = {
  name: 'cli',
  hours: 3,
  arrivalsPerHour: 6,
  ci: { medianMinutes: 15, p90Minutes: 30 },
  brokenRate: 0.1,
  flakeRate: 0.02,
  configs: [
    { name: 'predictive2', concurrency: 2 },
    { name: 'batch3', batch: true, batchingMinSize: 3 },
  ],
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'greenline-sim-cli-'));
  scenarioPath = join(dir, 'scenario.json');
  await writeFile(scenarioPath, JSON.stringify(scenario));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('greenline sim', () => {
  test('--json prints the report: scenario, configs, oracle, singleQueue; the same seed, the same bytes', async () => {
    const io = captureConsole();
    expect(await main(['sim', scenarioPath, '--json', '--seed', '7'])).toBe(0);
    const report = JSON.parse(io.out.join('\n')) as Record<string, unknown>;
    expect(Object.keys(report)).toEqual(['scenario', 'configs', 'oracle', 'singleQueue']);
    expect(report.scenario).toMatchObject({ name: 'cli', seed: 7 });
    const fields = [
      'merged',
      'failed',
      'mergedPerHour',
      'timeToMerge',
      'ciRuns',
      'ciMinutes',
      'ciRunsPerMerged',
      'goodKicked',
      'brokenMerged',
      'maxDepth',
      'unfinished',
    ];
    for (const row of [...(report.configs as object[]), report.oracle, report.singleQueue]) {
      for (const field of fields) expect(row).toHaveProperty(field);
    }
    expect((report.configs as { timeToMerge: object }[])[0]?.timeToMerge).toEqual({
      p50: expect.any(Number),
      p90: expect.any(Number),
      p99: expect.anything(),
      censored: expect.any(Array),
    });
    expect((report.oracle as { saturated: boolean }).saturated).toBe(false);
    expect(io.err).toEqual([]);

    vi.restoreAllMocks();
    const again = captureConsole();
    expect(await main(['sim', scenarioPath, '--json', '--seed', '7'])).toBe(0);
    expect(again.out.join('\n')).toBe(io.out.join('\n'));
  });

  test('without --json, a table', async () => {
    const io = captureConsole();
    expect(await main(['sim', scenarioPath])).toBe(0);
    const text = io.out.join('\n');
    expect(text).toMatch(/^cli: \d+ PRs over 3 h/);
    for (const label of [
      'predictive2',
      'batch3',
      'singleQueue (baseline)',
      'oracle (baseline)',
      'merged/h',
      'runs/merged',
    ])
      expect(text).toContain(label);
  });

  test('--out writes report.json, the charts, index.html and event logs that replay', async () => {
    const out = join(dir, 'out');
    const io = captureConsole();
    expect(await main(['sim', scenarioPath, '--out', out])).toBe(0);
    expect(io.err.join('\n')).toMatch(/wrote 8 files; open .*index\.html/);
    expect((await readdir(out)).sort()).toEqual([
      'cost-latency.svg',
      'events',
      'index.html',
      'queue-depth.svg',
      'report.json',
      'time-to-merge.svg',
    ]);
    expect((await readdir(join(out, 'events'))).sort()).toEqual(['baselines', 'batch3.jsonl', 'predictive2.jsonl']);
    expect(await readdir(join(out, 'events', 'baselines'))).toEqual(['singleQueue.jsonl']);
    const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as { configs: { name: string }[] };
    expect(report.configs.map((row) => row.name)).toEqual(['predictive2', 'batch3']);
    for (const [file, title] of [
      ['time-to-merge.svg', 'Time to merge'],
      ['queue-depth.svg', 'Queue depth'],
      ['cost-latency.svg', 'Cost against latency'],
    ] as const) {
      const svg = await readFile(join(out, file), 'utf8');
      expect(svg.startsWith('<svg')).toBe(true);
      expect(svg).toContain(`>${title}</text>`);
      for (const name of ['predictive2', 'batch3', 'singleQueue', 'oracle']) expect(svg).toContain(`>${name}</text>`);
    }
    const html = await readFile(join(out, 'index.html'), 'utf8');
    expect(html.match(/<svg/g)).toHaveLength(3);
    expect(html).toContain('<a href="report.json">');
    expect(html).toContain('events/batch3.jsonl');
    const log = parseEventLog(await readFile(join(out, 'events', 'batch3.jsonl'), 'utf8'));
    expect(replayEventLog(log).divergence).toBeNull();
    const baseline = parseEventLog(await readFile(join(out, 'events', 'baselines', 'singleQueue.jsonl'), 'utf8'));
    expect(baseline.header.source).toMatch(/ \/ singleQueue, seed 1$/);
  });

  test('--out to a path that cannot be a folder: a usage error (exit 2) before anything is simulated', async () => {
    const file = join(dir, 'a-file');
    await writeFile(file, 'not a folder');
    const io = captureConsole();
    expect(await main(['sim', scenarioPath, '--out', file])).toBe(2);
    expect(await main(['sim', scenarioPath, '--out', join(file, 'below')])).toBe(2);
    expect(io.out).toEqual([]);
    expect(io.err.join('\n')).toMatch(/--out .*a-file: cannot write there \(it, or a folder it needs, is a file\)/);
    expect(await readFile(file, 'utf8')).toBe('not a folder');
  });

  test("a configuration may not take a baseline's name", async () => {
    const reserved = join(dir, 'reserved.json');
    await writeFile(
      reserved,
      JSON.stringify({ ...scenario, configs: [{ name: 'oracle' }, { name: 'SingleQueue', concurrency: 2 }] }),
    );
    const io = captureConsole();
    expect(await main(['sim', reserved, '--out', join(dir, 'reserved-out')])).toBe(2);
    const message = io.err.join('\n');
    expect(message).toMatch(/configs\[0\]\.name: "oracle" is the name of a baseline/);
    expect(message).toMatch(/configs\[1\]\.name: "SingleQueue" is the name of a baseline/);
  });

  test('an invalid scenario: the fields at fault, exit code 2', async () => {
    const bad = join(dir, 'bad.json');
    await writeFile(
      bad,
      JSON.stringify({
        ...scenario,
        ci: { medianMinutes: 0, p90Minutes: 30 },
        configs: [{ name: 'x', batchingMinSize: 'eight' }],
      }),
    );
    const io = captureConsole();
    expect(await main(['sim', bad])).toBe(2);
    const message = io.err.join('\n');
    expect(message).toContain(`${bad} is not a valid scenario`);
    expect(message).toMatch(/ci\.medianMinutes: /);
    expect(message).toMatch(/configs\[0\]\.batchingMinSize: /);
    expect(io.out).toEqual([]);
  });

  test('usage errors: no scenario, a missing file, a bad seed; exit code 2', async () => {
    const io = captureConsole();
    expect(await main(['sim'])).toBe(2);
    expect(await main(['sim', join(dir, 'missing.json')])).toBe(2);
    expect(await main(['sim', scenarioPath, '--seed', '-1'])).toBe(2);
    expect(await main(['sim', scenarioPath, '--seed', 'abc'])).toBe(2);
    const message = io.err.join('\n');
    expect(message).toContain('sim needs one scenario file');
    expect(message).toMatch(/cannot read the scenario .*missing\.json: ENOENT/);
    expect(message).toContain('--seed must be an integer');
    expect(await main(['replay'])).toBe(2);
  });

  test('help lists sim, replay and events', () => {
    for (const line of [
      'greenline sim SCENARIO.json [--seed N] [--json] [--out DIR]',
      'greenline replay LOG',
      'greenline events --repo REPO',
    ]) {
      expect(HELP).toContain(line);
    }
  });
});
