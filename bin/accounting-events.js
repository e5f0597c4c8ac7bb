#!/usr/bin/env node
// Launcher of the `accounting-events` CLI. In a checkout with the development tools (tsx) it runs
// the TypeScript sources, so an edit takes effect at once; without them (`npm ci --omit=dev`, an
// installed package) it runs the build in dist/ that `npm ci` makes through `prepare`
// (`npm run build`). ACCOUNTING_EVENTS_BUILD=1 runs the build even where tsx is installed.
async function load() {
  if (process.env.ACCOUNTING_EVENTS_BUILD !== '1') {
    let register;
    try {
      ({ register } = await import('tsx/esm/api'));
    } catch {
      register = undefined;
    }
    if (register) {
      register();
      return import('../functions/local/cli.ts');
    }
  }
  try {
    return await import('../dist/cli.js');
  } catch (error) {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist/cli.js')) throw error;
    process.stderr.write('error: the build is missing (dist/cli.js); run `npm run build` (npm ci runs it)\n');
    process.exit(1);
  }
}

const { main } = await load();
const code = await main(process.argv.slice(2));
process.exitCode = code;
setTimeout(() => process.exit(code), 1000).unref();
