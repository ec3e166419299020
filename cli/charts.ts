/** `greenline charts`: every lifecycle machine as Mermaid text and as an SVG rendered from it. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { renderMermaidSVG } from 'beautiful-mermaid';
import { MACHINES } from '../machines/index.js';
import { toMermaid } from '../machines/mermaid.js';
import { endLine } from './lines.js';

export { CHARTS_HELP } from './helpTexts.js';

/** Writes `<name>.mmd` and `<name>.svg` for every machine into `outDir` (created if missing); prints each path. */
export async function chartsCommand(outDir: string): Promise<number> {
  const dir = resolve(outDir);
  await mkdir(dir, { recursive: true });
  for (const [name, machine] of Object.entries(MACHINES)) {
    const mermaid = toMermaid(machine);
    // beautiful-mermaid renders stateDiagram-v2 itself, synchronously.
    const svg = renderMermaidSVG(mermaid);
    for (const [path, text] of [
      [join(dir, `${name}.mmd`), mermaid],
      [join(dir, `${name}.svg`), svg],
    ] as const) {
      await writeFile(path, endLine(text));
      console.log(path);
    }
  }
  return 0;
}
