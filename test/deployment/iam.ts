/**
 * Every call a deployed function (or a service acting for the deployment) makes is decided here,
 * as IAM would: the caller's identity policies from the template and the resource's policy, by
 * @cloud-copilot/iam-simulate. Each decision is recorded, so a test can list what each function
 * called and which statement allowed it, and fail on any denial with the call named.
 */
import { runSimulation } from '@cloud-copilot/iam-simulate';
import { ACCOUNT, type Assembly, type Json, type PolicyDocument } from './assembly.js';

export type Decision = 'Allowed' | 'ImplicitlyDenied' | 'ExplicitlyDenied';

export interface CallRecord {
  /** Who called: a function's logical id, or a service principal (`events.amazonaws.com`). */
  readonly caller: string;
  readonly action: string;
  readonly resource: string;
  readonly decision: Decision;
  /** The statements that allowed it (policy name and statement Sid or index). */
  readonly allowedBy: readonly string[];
  /** Why it was denied, for the failure message. */
  readonly reason?: string;
}

export interface Principal {
  /** Logical id of the function (or the service principal's name) for the record. */
  readonly caller: string;
  /** Role ARN, or a service principal such as `events.amazonaws.com`. */
  readonly principal: string;
  /** Identity policies of the role; none for a service principal. */
  readonly policies: readonly { name: string; policy: PolicyDocument }[];
}

export interface Authorizer {
  /** Decides one call; records it. */
  authorize(
    who: Principal,
    action: string,
    resource: string,
    context?: Record<string, string | string[]>,
    resourceArnForPolicy?: string,
  ): Promise<CallRecord>;
  /** Like `authorize`, without recording (S3's "may it list?" answer to a missing key). */
  probe(
    who: Principal,
    action: string,
    resource: string,
    context?: Record<string, string | string[]>,
    resourceArnForPolicy?: string,
  ): Promise<Decision>;
  readonly calls: CallRecord[];
  denied(): CallRecord[];
}

/** Context every request carries on a real account: TLS, the account, the region. */
const baseContext = (): Record<string, string | string[]> => ({
  'aws:SecureTransport': 'true',
  'aws:SourceAccount': ACCOUNT,
  's3:TlsVersion': '1.3',
});

function statementLabels(analysis: Json, key: 'identityAnalysis' | 'resourceAnalysis'): string[] {
  const statements = analysis?.[key]?.allowStatements ?? [];
  return statements.map(
    (s: Json) =>
      `${key === 'identityAnalysis' ? '' : 'resource policy '}${s.policyId ?? ''}#${s.statement?.Sid ?? s.explain?.identifier ?? '?'}`,
  );
}

/** Why a call was denied: an explicit deny, or the role's statements for this action whose condition failed. */
function denialReason(analysis: Json): string {
  const parts: string[] = [];
  for (const key of ['identityAnalysis', 'resourceAnalysis'] as const) {
    for (const s of analysis?.[key]?.denyStatements ?? [])
      parts.push(`denied by ${JSON.stringify(s.statement)}`);
  }
  for (const s of analysis?.identityAnalysis?.unmatchedStatements ?? []) {
    if (s.actionMatch && s.resourceMatch)
      parts.push(`condition not met: ${JSON.stringify(s.statement.Condition)}`);
  }
  return parts.length > 0 ? parts.join('; ') : 'no statement of the role allows this action on this resource';
}

export function createAuthorizer(assembly: Assembly): Authorizer {
  const calls: CallRecord[] = [];
  const decide = async (
    who: Principal,
    action: string,
    resource: string,
    context: Record<string, string | string[]>,
    policyArn: string,
  ) => {
    const resourcePolicy = assembly.resourcePolicy(policyArn);
    const result = await runSimulation(
      {
        identityPolicies: who.policies.map((p) => ({ name: p.name, policy: p.policy as Json })),
        serviceControlPolicies: [],
        resourceControlPolicies: [],
        ...(resourcePolicy ? { resourcePolicy: resourcePolicy as Json } : {}),
        request: {
          action,
          principal: who.principal,
          resource: { resource, accountId: ACCOUNT },
          contextVariables: { ...baseContext(), ...context },
        },
      },
      {},
    );
    if (result.resultType === 'error') {
      throw new Error(`IAM simulation of ${action} on ${resource} failed: ${JSON.stringify(result.errors)}`);
    }
    if (result.resultType !== 'single')
      throw new Error(`IAM simulation of ${action}: unexpected ${result.resultType}`);
    return { decision: result.overallResult as Decision, analysis: result.result.analysis };
  };
  return {
    calls,
    async authorize(who, action, resource, context = {}, resourceArnForPolicy = resource) {
      const { decision, analysis } = await decide(who, action, resource, context, resourceArnForPolicy);
      const record: CallRecord = {
        caller: who.caller,
        action,
        resource,
        decision,
        allowedBy:
          decision === 'Allowed'
            ? [
                ...statementLabels(analysis, 'identityAnalysis'),
                ...statementLabels(analysis, 'resourceAnalysis'),
              ]
            : [],
        ...(decision === 'Allowed' ? {} : { reason: denialReason(analysis) }),
      };
      calls.push(record);
      return record;
    },
    async probe(who, action, resource, context = {}, resourceArnForPolicy = resource) {
      return (await decide(who, action, resource, context, resourceArnForPolicy)).decision;
    },
    denied: () => calls.filter((c) => c.decision !== 'Allowed'),
  };
}

/** One line per denied call: who, what, on which resource, and why. */
export function describeDenials(calls: readonly CallRecord[]): string {
  const lines = calls.map((c) => `${c.caller} ${c.action} on ${c.resource}: ${c.decision} (${c.reason})`);
  return [...new Set(lines)].join('\n');
}
