/**
 * The checks that make a passing deployment test mean something. After each test: no denied call
 * (but those a test took a grant away for), no call the stand-in does not serve, and no finding
 * (a message expired, an event lost, batch failures ignored, messages stranded behind a disabled
 * trigger). After each file: every rule of the template matched an event and reached each of its
 * targets, and every trigger, function and schedule ran — or is listed as out of the file's flows
 * with a reason (and then really did not run), and no role may do what it did to a resource the
 * template does not hold (a grant broader than the deployment: `Resource: "*"` without a
 * condition). Each line names the resource and its property.
 */
import type { Deployment } from './deployment.js';
import { describeDenials } from './iam.js';

/** What a file's flows do not exercise, by logical id prefix, with the reason. */
export type OutOfFlow = Readonly<Record<string, string>>;

export function findingsAfterTest(d: Deployment): string {
  const lines: string[] = [];
  const denied = describeDenials(d.authorizer.denied());
  if (denied) lines.push(`denied calls:\n${denied}`);
  if (d.standIn.unsupported.length > 0)
    lines.push(`calls not served by the stand-in:\n${d.standIn.unsupported.join('\n')}`);
  for (const e of d.queues.expired)
    lines.push(
      `${e.logicalId} MessageRetentionPeriod ${e.retentionSeconds} s: a message expired before it was handled (${e.body.slice(0, 80)}…)`,
    );
  lines.push(...d.usage.findings);
  for (const m of d.assembly.byType('AWS::Lambda::EventSourceMapping')) {
    const p = d.assembly.props(m);
    if (p.Enabled !== false && String(p.Enabled) !== 'false') continue;
    const waiting = d.queues.get(p.EventSourceArn).messages.length;
    if (waiting > 0)
      lines.push(
        `${m.logicalId} Enabled false: ${waiting} message(s) wait in its queue and no function reads them`,
      );
  }
  return lines.join('\n');
}

/** Each rule of the template that matched no event, or did not reach a target (unless out of flow). */
export function unmatchedRules(d: Deployment, outOfFlow: OutOfFlow): string {
  const lines: string[] = [];
  for (const rule of d.assembly.byType('AWS::Events::Rule')) {
    const p = d.assembly.props(rule);
    if (p.ScheduleExpression || Object.keys(outOfFlow).some((prefix) => rule.logicalId.startsWith(prefix)))
      continue;
    const matched = d.usage.ruleMatches.get(rule.logicalId) ?? 0;
    if (matched === 0) {
      lines.push(
        `${rule.logicalId} EventPattern ${JSON.stringify(p.EventPattern)} (State ${p.State ?? 'ENABLED'}) matched none of the ${d.standIn.published.length} events published`,
      );
      continue;
    }
    for (const [i, t] of (p.Targets ?? []).entries()) {
      if ((d.usage.targetDeliveries.get(`${rule.logicalId}#Targets[${i}]`) ?? 0) === 0)
        lines.push(`${rule.logicalId} Targets[${i}] (${t.Arn}) matched events but none reached the target`);
    }
  }
  return lines.join('\n');
}

export function unusedAfterFile(d: Deployment, outOfFlow: OutOfFlow): string {
  const lines: string[] = [];
  const listed = (id: string) => Object.keys(outOfFlow).find((prefix) => id.startsWith(prefix));
  const check = (id: string, used: boolean, what: string) => {
    const prefix = listed(id);
    if (prefix && used)
      lines.push(`${id} is listed out of flow (${outOfFlow[prefix]}) but ran in this file's flows`);
    if (!prefix && !used) lines.push(`${id} ${what}`);
  };
  for (const rule of d.assembly.byType('AWS::Events::Rule')) {
    const p = d.assembly.props(rule);
    if (p.ScheduleExpression) {
      check(
        rule.logicalId,
        (d.usage.schedulesFired.get(rule.logicalId) ?? 0) > 0,
        `ScheduleExpression ${p.ScheduleExpression} (State ${p.State}) never fired`,
      );
      continue;
    }
    const prefix = listed(rule.logicalId);
    if (prefix && (d.usage.ruleMatches.get(rule.logicalId) ?? 0) > 0)
      lines.push(
        `${rule.logicalId} is listed out of flow (${outOfFlow[prefix]}) but ran in this file's flows`,
      );
  }
  const rules = unmatchedRules(d, outOfFlow);
  if (rules) lines.push(rules);
  for (const s of d.assembly.byType('AWS::Scheduler::Schedule')) {
    const p = d.assembly.props(s);
    check(
      s.logicalId,
      (d.usage.schedulesFired.get(s.logicalId) ?? 0) > 0,
      `ScheduleExpression ${p.ScheduleExpression} (State ${p.State ?? 'ENABLED'}) never fired`,
    );
  }
  for (const m of d.assembly.byType('AWS::Lambda::EventSourceMapping')) {
    const p = d.assembly.props(m);
    check(
      m.logicalId,
      (d.usage.triggerInvocations.get(m.logicalId) ?? 0) > 0,
      `(Enabled ${p.Enabled ?? true}, on ${p.EventSourceArn}) never invoked its function`,
    );
  }
  for (const fn of d.lambda.functions) {
    check(
      fn.logicalId,
      d.invocations.some((i) => i.fn === fn.logicalId),
      'was never invoked',
    );
  }
  for (const prefix of Object.keys(outOfFlow)) {
    if (!d.assembly.resources.some((r) => r.logicalId.startsWith(prefix)))
      lines.push(`out-of-flow entry ${prefix} names no resource of the template`);
  }
  return lines.join('\n');
}

/** The same kind of resource, but one the template does not hold: `…:table/NAME` → `…:table/not-in-template`. */
export function foreignResource(arn: string): string {
  if (arn.startsWith('arn:aws:s3:::'))
    return arn.replace(/^arn:aws:s3:::[^/]+/, 'arn:aws:s3:::not-in-template');
  const [prefix, rest = ''] = [arn.split(':').slice(0, 5).join(':'), arn.split(':').slice(5).join(':')];
  const typed = /^([a-z-]+)([/:])/.exec(rest);
  if (!typed) return `${prefix}:not-in-template`;
  const tail = rest.slice(typed[0].length).replace(/^[^/:]+/, '');
  return `${prefix}:${typed[1]}${typed[2]}not-in-template${tail.replace(/^([/:])[^/:]*$/, '')}`;
}

/**
 * Every action a role was allowed, asked again for a resource of the same kind the template does
 * not hold (with the same context): allowed, the grant is broader than the deployment needs.
 */
export async function overGrants(d: Deployment): Promise<string> {
  const lines = new Set<string>();
  const seen = new Set<string>();
  for (const c of d.authorizer.calls) {
    if (c.decision !== 'Allowed' || c.action === 'sts:AssumeRole' || c.caller.endsWith('.amazonaws.com'))
      continue;
    const foreign = foreignResource(c.resource);
    const key = `${c.caller}|${c.action}|${foreign}`;
    if (seen.has(key) || foreign === c.resource) continue;
    seen.add(key);
    const fn = d.lambda.functions.find((f) => f.logicalId === c.caller);
    const who = fn ? d.standIn.principalOf(fn.logicalId) : undefined;
    if (!who) continue;
    if ((await d.authorizer.probe(who, c.action, foreign, c.context)) === 'Allowed')
      lines.add(
        `${c.caller} may ${c.action} on ${foreign}, which the template does not hold: its role's Resource is broader than the deployment (as for ${c.resource}, allowed by ${c.allowedBy.join(', ')})`,
      );
  }
  return [...lines].join('\n');
}
