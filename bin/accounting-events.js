#!/usr/bin/env node
// Launcher of the `accounting-events` CLI: registers tsx's ESM loader, then runs the TypeScript entry.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../functions/local/cli.ts');
const code = await main(process.argv.slice(2));
process.exitCode = code;
setTimeout(() => process.exit(code), 1000).unref();
