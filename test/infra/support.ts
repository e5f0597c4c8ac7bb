import { readFileSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { type BuildAppOptions, type BuiltApp, buildApp } from '#infra/build-app.js';
import { defaultInfraConfig } from '#infra/config/load.js';
import type { InfraConfig, InfraConfigInput } from '#infra/config/schema.js';

/** The feature flags and context of cdk.json, so tests synthesize what `cdk synth` does. */
export const CDK_JSON_CONTEXT = (
  JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as {
    context: Record<string, unknown>;
  }
).context;

export const TEST_ENV = { account: '111111111111', region: 'eu-central-1' } as const;

/**
 * The service base URL of the tests' deployments: the default variant (`sk`) presets none, and a
 * single-company deployment is refused without one.
 */
export const TEST_BASE_URL = 'https://api.example.sk';

/** The defaults with the given settings, and `TEST_BASE_URL` where they name no `accountingBaseUrl`. */
export function testInfraConfig(overrides: Partial<InfraConfigInput> = {}): InfraConfig {
  return defaultInfraConfig({ stage: 'prod', accountingBaseUrl: TEST_BASE_URL, ...overrides });
}

export interface TestApp extends BuiltApp {
  readonly app: App;
  readonly statefulTemplate: Template;
  readonly statelessTemplate: Template;
}

/** Both stacks with the given settings (`testInfraConfig`); no bundling unless asked (≈ 2 s per function). */
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
    config: testInfraConfig(overrides),
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
