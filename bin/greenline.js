#!/usr/bin/env node
// The `greenline` command: runs the compiled CLI (npm ci and npm start build it into dist/).
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli/greenline.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('greenline: the build is missing; run `npm run build` (npm ci and npm start run it too)');
  process.exit(1);
}
await import(entry.href);
