#!/usr/bin/env node
/** Entry point of the `greenline` command (bin/greenline.js runs the compiled copy of this file). */
import { main } from './main.js';

process.exitCode = await main(process.argv.slice(2));
