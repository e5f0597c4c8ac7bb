/**
 * CDK's built-in CloudFormation validation (the resource schemas and rules `cdk synth` checks
 * before anything deploys; an error, not a warning, under cdk.json's
 * `@aws-cdk/core:validateAgainstDefaultRules`) passes for every configuration the deployment test
 * deploys. The
 * deployment test's own syntheses skip it (test/deployment/assembly.ts): its engine takes seconds
 * to start in each of their processes, while this file starts it once for all of them.
 */
import { App, CfnResource, type Stack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { buildApp } from '#infra/build-app.js';
import type { InfraConfigInput } from '#infra/config/schema.js';
import { CDK_JSON_CONTEXT, TEST_ENV, testInfraConfig } from './support.js';

const CONSUMER = 'http://127.0.0.1:9';

/** The settings of each deployment test file (test/deployment/*.test.ts), addresses aside. */
const DEPLOYED: Record<string, Partial<InfraConfigInput>> = {
  'einvoicing, failure-paths': {},
  'one-connection': {
    deliveryPrivateTargets: true,
    deliveries: [
      `${CONSUMER}/events`,
      { url: `${CONSUMER}/invoices`, pattern: 'IssuedInvoice.*', name: 'invoices' },
    ],
    actions: { ACTIONS_EINVOICE_PARTNERS: '1', ACTIONS_SHOP_PAYMENTS: 'shopify' },
  },
  registry: {
    connectionRegistry: true,
    payments: true,
    deliveryPrivateTargets: true,
    deliveries: [`${CONSUMER}/events`, { url: `${CONSUMER}/acme`, connections: ['acme'] }],
    actions: { ACTIONS_EINVOICE_PARTNERS: '1' },
  },
  'payment-reminders': { payments: true, actions: { ACTIONS_PAYMENT_REMINDERS: 'true' } },
  shoptet: {
    intakeShoptet: true,
    intakeSettings: { INTAKE_SHOPTET_API_URL: `${CONSUMER}/shoptet`, INTAKE_SHOPTET_SWEEP_SECONDS: '60' },
  },
};

/** The app with the given settings, validated as `cdk synth` validates it (no bundling). */
function validatedApp(config: Partial<InfraConfigInput>, alter?: (stack: Stack) => void): App {
  const app = new App({
    builtinCloudFormationValidation: true,
    context: {
      ...CDK_JSON_CONTEXT,
      'aws:cdk:bundling-stacks': [],
    },
  });
  const built = buildApp(app, { env: TEST_ENV, nag: false, config: testInfraConfig(config) });
  alter?.(built.stateless);
  return app;
}

describe("CloudFormation's validation at synth", () => {
  for (const [files, config] of Object.entries(DEPLOYED)) {
    it(`passes for what ${files} deploys`, () => {
      expect(() => validatedApp(config).synth()).not.toThrow();
    }, 120_000);
  }

  it('refuses a resource that breaks its schema', () => {
    const app = validatedApp({}, (stack) => {
      new CfnResource(stack, 'BrokenQueue', {
        type: 'AWS::SQS::Queue',
        properties: { VisibilityTimeout: 'soon', NotAProperty: true },
      });
    });
    expect(() => app.synth()).toThrow(/BrokenQueue|VisibilityTimeout|NotAProperty/);
  }, 120_000);
});
