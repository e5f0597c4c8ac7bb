/**
 * Detail-types are typed: every name the code states is checked by the compiler against the
 * tables the catalog is built from. The `@ts-expect-error` lines are the proof — `npm test` runs
 * `tsc` over this file, which fails if any of them compiles (the directive is then unused).
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { RecordType } from '#functions/accounting/collections.js';
import { isdocArchivedType } from '#functions/core/actions/archive-isdoc/events.js';
import { publishOutcome } from '#functions/core/actions/outcomes.js';
import { transferredType } from '#functions/core/actions/transfer-documents/events.js';
import {
  type ACTION_FAILED,
  type DetailType,
  detailTypeSchema,
  detailTypes,
  eventCatalog,
  isDetailType,
  type OutcomeDetailType,
} from '#functions/core/event-catalog.js';
import type { CONNECTION_UNHEALTHY } from '#functions/core/events/connection-events.js';
import { recordDetailType } from '#functions/core/events/envelope.js';
import { intakeDetailType } from '#functions/core/events/intake-events.js';
import type { BusEvent } from '#functions/core/ports.js';
import type { RoutePattern } from '#functions/core/route-spec.js';
import type { PutEventsScope } from '#infra/constructs/grants.js';

describe('detail-types are checked at compile time', () => {
  it('derives every family from its table', () => {
    expectTypeOf<'IssuedInvoice.Created'>().toExtend<DetailType>();
    expectTypeOf<'IssuedInvoiceCorrectiveTaxDocument.Deleted'>().toExtend<DetailType>(); // cz only
    expectTypeOf<'ReceivedOrder.Transferred'>().toExtend<DetailType>();
    expectTypeOf<'IssuedAdvanceInvoice.IsdocArchived'>().toExtend<DetailType>();
    expectTypeOf<'EshopOrder.Rejected'>().toExtend<DetailType>();
    expectTypeOf<'Connection.Recovered'>().toExtend<DetailType>();
    expectTypeOf<typeof CONNECTION_UNHEALTHY>().toExtend<DetailType>();
    expectTypeOf<typeof ACTION_FAILED>().toExtend<OutcomeDetailType>();
    expectTypeOf<'IssuedInvoice.Craeted'>().not.toExtend<DetailType>();
    // Only documents with ISDOC are archived, only transfer sources are transferred.
    expectTypeOf<'ReceivedOrder.IsdocArchived'>().not.toExtend<DetailType>();
    expectTypeOf<'IssuedInvoice.Transferred'>().not.toExtend<DetailType>();
    expectTypeOf(
      recordDetailType('IssueSlip', 'Updated'),
    ).toEqualTypeOf<`${RecordType}.${'Created' | 'Updated' | 'Deleted'}`>();
  });

  it('refuses a mistyped detail-type wherever code names one', () => {
    // @ts-expect-error a typo in a detail-type
    const typo: DetailType = 'IssuedInvoice.Craeted';
    // @ts-expect-error a record type the collection table does not have
    recordDetailType('IssuedInvoce', 'Created');
    // @ts-expect-error a change kind that does not exist
    recordDetailType('IssuedInvoice', 'Modified');
    // @ts-expect-error IssueSlip has no ISDOC export
    isdocArchivedType('IssueSlip');
    // @ts-expect-error no transfer starts from an issued invoice
    transferredType('IssuedInvoice');
    // @ts-expect-error the intake has no such change
    intakeDetailType('Shipped');
    // A route's pattern is checked when the routing table is built (routes.test.ts): any catalog event may trigger an action.
    const pattern: RoutePattern = { 'detail-type': ['ReceivedOrder.Created'] };
    // @ts-expect-error the bus port takes catalog detail-types only
    const event: BusEvent = { source: 'accounting.acme', detailType: 'Action.Faild', detail: {} };
    // @ts-expect-error an IAM grant on PutEvents names catalog detail-types only
    const scope: PutEventsScope = { source: 'accounting.acme', detailTypes: ['EshopOrder.Receieved'] };
    const publishRecordEvent = (publisher: Parameters<typeof publishOutcome>[0]) =>
      // @ts-expect-error an action publishes a catalog entry of its own, never a bare detail-type
      publishOutcome(publisher, 'accounting.acme', 'IssuedInvoice.Created', {}, new Date());
    expect([typo, pattern, event, scope, publishRecordEvent]).toHaveLength(5);
  });
});

describe('detail-types given as input', () => {
  it('lists every catalog entry once', () => {
    expect(detailTypes).toEqual(eventCatalog.map((e) => e.detailType));
    expect(new Set(detailTypes).size).toBe(detailTypes.length);
    for (const t of detailTypes) expect(isDetailType(t), t).toBe(true);
  });

  it('are validated against the catalog with zod, naming the bad value', () => {
    expect(detailTypeSchema.parse('IssuedInvoice.Created')).toBe('IssuedInvoice.Created');
    const bad = detailTypeSchema.safeParse('IssuedInvoice.Craeted');
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toBe(
      'expected a detail-type of the event catalog, got "IssuedInvoice.Craeted"',
    );
    expect(isDetailType('IssuedInvoice.Craeted')).toBe(false);
  });
});
