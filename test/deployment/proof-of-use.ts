/**
 * The checks that make a passing deployment test mean something. After each test: no denied call
 * (but those a test took a grant away for), no call the stand-in does not serve, and no finding
 * (a message expired, an event lost, batch failures ignored, messages stranded behind a disabled
 * trigger). After each file: every rule of the template matched an event and reached each of its
 * targets, and every trigger, function and schedule ran — or is listed as out of the file's flows
 * with a reason (and then really did not run). Each line names the resource and its property.
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
    const matched = d.usage.ruleMatches.get(rule.logicalId) ?? 0;
    check(
      rule.logicalId,
      matched > 0,
      `EventPattern ${JSON.stringify(p.EventPattern)} (State ${p.State ?? 'ENABLED'}) matched none of the ${d.standIn.published.length} events published`,
    );
    if (matched === 0) continue;
    for (const [i, t] of (p.Targets ?? []).entries()) {
      if (
        (d.usage.targetDeliveries.get(`${rule.logicalId}#Targets[${i}]`) ?? 0) === 0 &&
        !listed(rule.logicalId)
      )
        lines.push(`${rule.logicalId} Targets[${i}] (${t.Arn}) matched events but none reached the target`);
    }
  }
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
