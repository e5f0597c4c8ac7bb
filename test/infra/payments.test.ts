/**
 * Payment detection on the deployed poller: on by default, the poller is told (`POLLER_PAYMENTS=true`)
 * and may publish the payment detail-types, and nothing more; `payments=false` turns it off.
 */
import { describe, expect, it } from 'vitest';
import { buildTestApp } from './support.js';

function poller(t: ReturnType<typeof buildTestApp>) {
  const resources = t.statelessTemplate.toJSON().Resources as Record<
    string,
    { Type: string; Properties: Record<string, unknown> }
  >;
  const logicalId = (path: string, child: string) =>
    t.stateless.resolve(
      (
        t.stateless.node.findChild('Poller').node.findChild(path === 'fn' ? 'Function' : child).node
          .defaultChild as unknown as { logicalId: string }
      ).logicalId,
    ) as string;
  const fn = resources[logicalId('fn', 'Function')] as unknown as {
    Properties: { Environment: { Variables: Record<string, unknown> } };
  };
  const roleId = logicalId('role', 'Role');
  const statement = Object.values(resources)
    .filter((r) => r.Type === 'AWS::IAM::Policy' && JSON.stringify(r.Properties.Roles).includes(roleId))
    .flatMap((p) => (p.Properties.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement)
    .find((st) => st.Action === 'events:PutEvents') as { Condition: Record<string, Record<string, unknown>> };
  return { env: fn.Properties.Environment.Variables, putEvents: statement.Condition };
}

describe('payment detection in the stack', () => {
  it('is on by default: the poller is told and may publish Paid, PartiallyPaid and Overdue', () => {
    const p = poller(buildTestApp());
    expect(p.env.POLLER_PAYMENTS).toBe('true');
    expect(p.putEvents['ForAllValues:StringLike']).toEqual({
      'events:detail-type': [
        '*.Created',
        '*.Updated',
        '*.Deleted',
        '*.Paid',
        '*.PartiallyPaid',
        '*.Overdue',
        'Connection.Unhealthy',
        'Connection.Recovered',
      ],
    });
  });

  it('turned off (payments=false), the poller is told and granted only the record and health events', () => {
    const p = poller(buildTestApp({ payments: false }));
    expect(p.env.POLLER_PAYMENTS).toBe('false');
    expect(p.putEvents['ForAllValues:StringLike']).toEqual({
      'events:detail-type': [
        '*.Created',
        '*.Updated',
        '*.Deleted',
        'Connection.Unhealthy',
        'Connection.Recovered',
      ],
    });
  });
});
