/**
 * Every call a deployed function (or a service acting for the deployment) makes is decided here,
 * as IAM would: the caller's identity policies from the template and the resource's policy, by
 * @cloud-copilot/iam-simulate. Each decision is recorded, so a test can list what each function
 * called and which statement allowed it, and fail on any denial with the call, the statement and
 * the condition that refused it named.
 *
 * Context keys are the ones AWS sets: `aws:SourceAccount` and `aws:SourceArn` only on a call a
 * service makes for a resource of the account (a rule delivering to its queue, Scheduler or API
 * Gateway invoking a function), never on a role's own calls. A service assuming a role is decided
 * against the role's trust policy (`sts:AssumeRole`).
 */
import { runSimulation } from '@cloud-copilot/iam-simulate';
import { ACCOUNT, type Assembly, type Json, type PolicyDocument } from './assembly.js';

export type Decision = 'Allowed' | 'ImplicitlyDenied' | 'ExplicitlyDenied';

export interface CallRecord {
  /** Who called: a function's logical id, or a service principal (`events.amazonaws.com`). */
  readonly caller: string;
  readonly action: string;
  readonly resource: string;
  /** The request's own context keys (the base ones apart). */
  readonly context: Context;
  readonly decision: Decision;
  /** The statements that allowed it (policy name and statement Sid or index). */
  readonly allowedBy: readonly string[];
  /** Why it was denied: which policy (the role's or the resource's) refused, and its statement and condition. */
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

export type Context = Record<string, string | string[]>;

export interface Authorizer {
  /** Decides one call; records it. */
  authorize(
    who: Principal,
    action: string,
    resource: string,
    context?: Context,
    resourceArnForPolicy?: string,
  ): Promise<CallRecord>;
  /** Like `authorize`, without recording (S3's "may it list?" answer to a missing key, the breadth probes). */
  probe(
    who: Principal,
    action: string,
    resource: string,
    context?: Context,
    resourceArnForPolicy?: string,
  ): Promise<Decision>;
  /** A service assuming a role: decided by the role's trust policy; recorded. */
  assumeRole(service: string, roleArn: string, caller: string, context?: Context): Promise<CallRecord>;
  /** A resource policy the template does not hold (an AWS managed key's), by ARN. */
  addResourcePolicy(arn: string, policy: PolicyDocument): void;
  readonly calls: CallRecord[];
  denied(): CallRecord[];
  /**
   * Marks the denied calls `which` accepts as expected by the test (a grant taken away on purpose),
   * so the check after each test does not count them; returns them.
   */
  acknowledgeDenials(which: (c: CallRecord) => boolean): CallRecord[];
}

const isService = (principal: string) => principal.endsWith('.amazonaws.com');

/** What every request carries on a real account (TLS); a service's call also its source account. */
const baseContext = (principal: string): Context => ({
  'aws:SecureTransport': 'true',
  's3:TlsVersion': '1.3',
  ...(isService(principal) ? { 'aws:SourceAccount': ACCOUNT } : {}),
});

function statementLabels(analysis: Json, key: 'identityAnalysis' | 'resourceAnalysis'): string[] {
  const statements = analysis?.[key]?.allowStatements ?? [];
  return statements.map(
    (s: Json) =>
      `${key === 'identityAnalysis' ? '' : 'resource policy '}${s.policyId ?? ''}#${s.statement?.sid?.() ?? s.explain?.identifier ?? '?'}`,
  );
}

/** `StringEquals aws:SourceAccount (missing)` for each condition of a statement that failed. */
function failedConditions(explain: Json): string {
  const failed = (explain?.conditions ?? []).filter((c: Json) => c.matches === false);
  return failed
    .map((c: Json) => {
      const expected = [c.values].flat().map((v: Json) => v?.value);
      const why = c.failedBecauseMissing ? 'key absent from the request' : `expected ${expected.join(' | ')}`;
      return `${c.operator} ${c.conditionKeyValue} (${why})`;
    })
    .join(', ');
}

/**
 * `kms:EncryptionContext:<key>` as the simulator can evaluate it. Its data knows the key, but it
 * matches a request's variable keys only in the `prefix/name` form (`aws:PrincipalTag/x`), so a
 * `kms:EncryptionContext:PARAMETER_ARN` of the request would be ignored and every condition on it
 * fail. KMS calls have the key renamed, in the policies and in the request alike, to a
 * `aws:PrincipalTag/…` key no policy of the template uses — the same operator, value and case rule.
 */
const ENCRYPTION_CONTEXT_KEY = /kms:EncryptionContext:([\w.-]+)/gi;
const simulatedContextKey = (key: string) =>
  key.replace(ENCRYPTION_CONTEXT_KEY, (_, name: string) => `aws:PrincipalTag/kms-encryption-context-${name}`);
function forSimulation<T>(action: string, value: T): T {
  if (!action.toLowerCase().startsWith('kms:') || value === undefined) return value;
  return JSON.parse(simulatedContextKey(JSON.stringify(value))) as T;
}

const label = (s: Json) => `${s.policyId ?? 'policy'}#${s.explain?.identifier ?? '?'}`;

/**
 * Why a call was denied, naming the policy that refused: an explicit deny (role or resource
 * policy), a statement for this action and resource whose condition failed, or no statement at all.
 */
export function denialReason(analysis: Json, who: Principal, resourcePolicyOf: string | undefined): string {
  const parts: string[] = [];
  const where = {
    identityAnalysis: `role policy`,
    resourceAnalysis: `resource policy of ${resourcePolicyOf}`,
  };
  for (const key of ['identityAnalysis', 'resourceAnalysis'] as const) {
    for (const s of analysis?.[key]?.denyStatements ?? [])
      parts.push(`explicitly denied by the ${where[key]} ${label(s)}`);
  }
  for (const key of ['identityAnalysis', 'resourceAnalysis'] as const) {
    for (const s of analysis?.[key]?.unmatchedStatements ?? []) {
      const principalOk = key === 'identityAnalysis' || s.principalMatch === 'Match';
      if (s.actionMatch && s.resourceMatch && principalOk && s.explain?.effect === 'Allow')
        parts.push(
          `refused by the ${where[key]} ${label(s)}: condition ${failedConditions(s.explain)} not met`,
        );
    }
  }
  if (parts.length > 0) return parts.join('; ');
  if (isService(who.principal))
    return `refused by the resource policy${resourcePolicyOf ? ` of ${resourcePolicyOf}` : ' (the resource has none)'}: no statement allows ${who.principal}`;
  return `refused by the role: no statement of ${who.principal.split('/').pop()}'s policies allows this action on this resource${resourcePolicyOf ? ', nor does the resource policy' : ''}`;
}

export function createAuthorizer(assembly: Assembly): Authorizer {
  const calls: CallRecord[] = [];
  const acknowledged = new Set<CallRecord>();
  const extraPolicies = new Map<string, PolicyDocument>();
  const policyOf = (arn: string) => extraPolicies.get(arn) ?? assembly.resourcePolicy(arn);
  const decide = async (
    who: Principal,
    action: string,
    resource: string,
    context: Context,
    resourcePolicy: PolicyDocument | undefined,
  ) => {
    const result = await runSimulation(
      {
        identityPolicies: who.policies.map((p) => ({
          name: p.name,
          policy: forSimulation(action, p.policy) as Json,
        })),
        serviceControlPolicies: [],
        resourceControlPolicies: [],
        ...(resourcePolicy ? { resourcePolicy: forSimulation(action, resourcePolicy) as Json } : {}),
        request: {
          action,
          principal: who.principal,
          resource: { resource, accountId: ACCOUNT },
          contextVariables: forSimulation(action, { ...baseContext(who.principal), ...context }),
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
  const record = (
    who: Principal,
    action: string,
    resource: string,
    decision: Decision,
    analysis: Json,
    policyOf: string | undefined,
    context: Context,
  ): CallRecord => {
    const out: CallRecord = {
      caller: who.caller,
      action,
      resource,
      context,
      decision,
      allowedBy:
        decision === 'Allowed'
          ? [
              ...statementLabels(analysis, 'identityAnalysis'),
              ...statementLabels(analysis, 'resourceAnalysis'),
            ]
          : [],
      ...(decision === 'Allowed' ? {} : { reason: denialReason(analysis, who, policyOf) }),
    };
    calls.push(out);
    return out;
  };
  return {
    calls,
    async authorize(who, action, resource, context = {}, resourceArnForPolicy = resource) {
      const policy = policyOf(resourceArnForPolicy);
      const { decision, analysis } = await decide(who, action, resource, context, policy);
      return record(
        who,
        action,
        resource,
        decision,
        analysis,
        policy ? resourceArnForPolicy : undefined,
        context,
      );
    },
    async probe(who, action, resource, context = {}, resourceArnForPolicy = resource) {
      return (await decide(who, action, resource, context, policyOf(resourceArnForPolicy))).decision;
    },
    async assumeRole(service, roleArn, caller, context = {}) {
      const role = assembly.byType('AWS::IAM::Role').find((r) => r.attributes.Arn === roleArn);
      const trust = role ? (assembly.props(role).AssumeRolePolicyDocument as PolicyDocument) : undefined;
      const who: Principal = { caller, principal: service, policies: [] };
      const { decision, analysis } = await decide(who, 'sts:AssumeRole', roleArn, context, trust);
      const out = record(who, 'sts:AssumeRole', roleArn, decision, analysis, undefined, context);
      if (decision === 'Allowed') return out;
      const reason = `refused by the trust policy (AssumeRolePolicyDocument) of ${role?.logicalId ?? roleArn}: no statement lets ${service} assume it`;
      const replaced: CallRecord = { ...out, reason };
      calls.splice(calls.indexOf(out), 1, replaced);
      return replaced;
    },
    addResourcePolicy: (arn, policy) => extraPolicies.set(arn, policy),
    denied: () => calls.filter((c) => c.decision !== 'Allowed' && !acknowledged.has(c)),
    acknowledgeDenials(which) {
      const matched = calls.filter((c) => c.decision !== 'Allowed' && !acknowledged.has(c) && which(c));
      for (const c of matched) acknowledged.add(c);
      return matched;
    },
  };
}

/** One line per denied call: who, what, on which resource, and why. */
export function describeDenials(calls: readonly CallRecord[]): string {
  const lines = calls.map((c) => `${c.caller} ${c.action} on ${c.resource}: ${c.decision} (${c.reason})`);
  return [...new Set(lines)].join('\n');
}
