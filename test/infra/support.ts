import { readFileSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { type BuildAppOptions, type BuiltApp, buildApp } from '../../infra/build-app.js';
import { defaultInfraConfig } from '../../infra/config/load.js';
import type { InfraConfigInput } from '../../infra/config/schema.js';

/** The feature flags and context of cdk.json, so tests synthesize what `cdk synth` does. */
export const CDK_JSON_CONTEXT = (
  JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as {
    context: Record<string, unknown>;
  }
).context;

export const TEST_ENV = { account: '111111111111', region: 'eu-central-1' } as const;

export interface TestApp extends BuiltApp {
  readonly app: App;
  readonly statefulTemplate: Template;
  readonly statelessTemplate: Template;
}

/** Both stacks with the given settings; no bundling unless asked (≈ 2 s per function). */
export function buildTestApp(
  overrides: Partial<InfraConfigInput> = {},
  options: Omit<BuildAppOptions, 'config'> & { bundle?: boolean; outdir?: string } = {},
): TestApp {
  const app = new App({
    // CloudFormation's built-in rule check takes ~10 s per synth; cdk-nag runs in its own test.
    builtinCloudFormationValidation: false,
    context: { ...CDK_JSON_CONTEXT, ...(options.bundle ? {} : { 'aws:cdk:bundling-stacks': [] }) },
    ...(options.outdir ? { outdir: options.outdir } : {}),
  });
  const built = buildApp(app, {
    env: TEST_ENV,
    nag: false,
    ...options,
    config: defaultInfraConfig(overrides),
  });
  return {
    ...built,
    app,
    statefulTemplate: Template.fromStack(built.stateful),
    statelessTemplate: Template.fromStack(built.stateless),
  };
}

/** cdk-nag AwsSolutions over the whole app: every unacknowledged finding, as `rule @ path`. */
export function nagFindings(app: App): { errors: string[]; warnings: string[] } {
  const report = new AwsSolutionsChecks(app).validateScope(app);
  const errors: string[] = [];
  const warnings: string[] = [];
  for (const v of report.violations) {
    for (const r of v.violatingResources) {
      (v.severity === 'error' ? errors : warnings).push(`${v.ruleName} @ ${r.constructPath}`);
    }
  }
  return { errors, warnings };
}
