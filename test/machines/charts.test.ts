import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { CHARTS_HELP, chartsCommand } from '../../cli/charts.js';
import { MACHINES } from '../../machines/index.js';
import { toMermaid } from '../../machines/mermaid.js';

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'greenline-charts-'));
});

afterEach(async () => {
  vi.restoreAllMocks();
  await rm(root, { recursive: true, force: true });
});

it('writes every machine as Mermaid and SVG, creating the folder, and prints the paths', async () => {
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  const out = join(root, 'nested', 'charts');
  expect(await chartsCommand(out)).toBe(0);

  const names = Object.keys(MACHINES);
  const expected = names.flatMap((name) => [`${name}.mmd`, `${name}.svg`]);
  expect((await readdir(out)).sort()).toEqual([...expected].sort());
  expect(expected).toHaveLength(8);
  expect(log.mock.calls.map(([path]) => path)).toEqual(expected.map((file) => join(out, file)));

  for (const [name, machine] of Object.entries(MACHINES)) {
    // Text files end with a newline.
    expect(await readFile(join(out, `${name}.mmd`), 'utf8')).toBe(`${toMermaid(machine).replace(/\n$/, '')}\n`);
    const svg = await readFile(join(out, `${name}.svg`), 'utf8');
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.endsWith('</svg>\n')).toBe(true);
    // Every state is drawn.
    for (const state of Object.keys(machine.root.states)) expect(svg).toContain(`>${state}</text>`);
  }
});

it('has a help line', () => {
  expect(CHARTS_HELP).toMatch(
    /^ {2}greenline charts \[--out DIR\] +write every lifecycle machine as Mermaid and SVG \(default \.\/charts\)$/,
  );
});
