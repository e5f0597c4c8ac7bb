/**
 * The CDK app (`cdk.json` runs `npx tsx infra/app.ts`). Synthesizes offline: without credentials
 * the account stays unresolved. The region is the configured one (`-c region=…` or
 * `ACCOUNTING_EVENTS_REGION`, default eu-central-1), never the CLI's `CDK_DEFAULT_REGION`, which the
 * CLI sets to us-east-1 when no profile names a region. Bad settings end it with one line each.
 */
import { App } from 'aws-cdk-lib';
import { buildApp } from './build-app.js';
import { loadInfraConfig } from './config/load.js';
import { synthErrorReport } from './synth-errors.js';

try {
  const app = new App();
  const config = loadInfraConfig({ context: (key) => app.node.tryGetContext(key), env: process.env });
  const account = process.env.CDK_DEFAULT_ACCOUNT;
  buildApp(app, { config, env: { ...(account ? { account } : {}), region: config.region } });
  app.synth();
} catch (error) {
  const report = synthErrorReport(error);
  process.stderr.write(report.text);
  process.exit(report.code);
}
