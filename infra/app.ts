/**
 * The CDK app (`cdk.json` runs `npx tsx infra/app.ts`). Synthesizes offline: without credentials
 * the account stays unresolved and the region defaults to eu-central-1.
 */
import { App } from 'aws-cdk-lib';
import { buildApp } from './build-app.js';
import { loadInfraConfig } from './config.js';

export const DEFAULT_REGION = 'eu-central-1';

const app = new App();
const config = loadInfraConfig({ context: (key) => app.node.tryGetContext(key), env: process.env });
const account = process.env.CDK_DEFAULT_ACCOUNT;
const region = process.env.CDK_DEFAULT_REGION ?? process.env.AWS_REGION ?? DEFAULT_REGION;

buildApp(app, { config, env: { ...(account ? { account } : {}), region } });
app.synth();
