/** The dashboard's static files: its script, style sheet and icon (web/assets), and htmx from its npm package. */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export interface Asset {
  type: string;
  body: Buffer;
}

/** web/assets next to the sources, or from the compiled dist/web the folder of the sources. */
function assetDir(): string {
  for (const candidate of ['./assets/', '../../web/assets/']) {
    const path = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new Error('the dashboard assets (web/assets) are missing');
}

export function loadAssets(): Map<string, Asset> {
  const dir = assetDir();
  const htmx = createRequire(import.meta.url).resolve('htmx.org/dist/htmx.min.js');
  return new Map([
    ['htmx.min.js', { type: 'text/javascript; charset=utf-8', body: readFileSync(htmx) }],
    ['dashboard.js', { type: 'text/javascript; charset=utf-8', body: readFileSync(`${dir}dashboard.js`) }],
    ['dashboard.css', { type: 'text/css; charset=utf-8', body: readFileSync(`${dir}dashboard.css`) }],
    ['favicon.svg', { type: 'image/svg+xml', body: readFileSync(`${dir}favicon.svg`) }],
  ]);
}
