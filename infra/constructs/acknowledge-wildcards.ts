/**
 * cdk-nag v3 acknowledges each IAM5 finding by its exact text, e.g.
 * `AwsSolutions-IAM5[Resource::<Bucket.Arn>/isdoc/*]`. For resources of another stack that text
 * holds the export name CDK chooses while preparing the app, so it cannot be written down ahead.
 * These helpers acknowledge one known resource pattern per call: they compute the finding's text
 * in a construct validation, which runs after references are resolved and before cdk-nag runs.
 */
import { Stack, Validations } from 'aws-cdk-lib';
import { flattenCfnReference } from 'cdk-nag/lib/utils/flatten-cfn-reference.js';
import type { IConstruct } from 'constructs';

/** The finding id cdk-nag reports for a wildcard resource, as seen from `scope`'s stack. */
export function wildcardFindingId(scope: IConstruct, resource: string): string {
  return `AwsSolutions-IAM5[Resource::${flattenCfnReference(Stack.of(scope).resolve(resource))}]`;
}

/**
 * Acknowledges the IAM5 finding of exactly `resource` (a token string such as
 * `bucket.arnForObjects('isdoc/*')`) on `scope` and its children, with a reason.
 */
export function acknowledgeWildcardResource(scope: IConstruct, resource: string, reason: string): void {
  scope.node.addValidation({
    validate: () => {
      Validations.of(scope).acknowledge({ id: wildcardFindingId(scope, resource), reason });
      return [];
    },
  });
}
