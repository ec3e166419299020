// Loaded with `node --import`: records every module the process resolves, one URL a line, in GREENLINE_IMPORT_LOG
// (test/e2e/startup.test.ts asks which modules a command loads).
import { register } from 'node:module';

register(new URL('./importLogHooks.mjs', import.meta.url), { data: { file: process.env.GREENLINE_IMPORT_LOG } });
