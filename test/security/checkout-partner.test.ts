/**
 * Finding 1: a checkout field decided who is invoiced. An order from "Mallory" with a note
 * attribute `ico=<a registered partner's IČO>` became a received order billed to that company and
 * was e-invoiced to it. Now the intake links no partner by default; with matching switched on the
 * order carries the checkout mark, and the sending action holds every invoice made from it
 * (`IssuedInvoice.SendingHeld`) — nothing is sent to the partner.
 */
import { describe, expect, it } from 'vitest';
import type { ApiRecord } from '#functions/accounting/api.js';
import { createDynamoDbCheckpointStore } from '#functions/adapters/aws/dynamodb-checkpoint-store.js';
import { createPowertoolsGuard } from '#functions/adapters/aws/powertools-idempotency-guard.js';
import type { OpenSendings } from '#functions/core/actions/open-sendings.js';
import { sendInvoiceAction } from '#functions/core/actions/send-invoice/action.js';
import { SENDING_HELD } from '#functions/core/actions/send-invoice/events.js';
import { loadIntakeConfig } from '#functions/core/intake/intake-config.js';
import { mapShopOrder } from '#functions/core/intake/map-order.js';
import { loadReferences } from '#functions/core/intake/references.js';
import { shopOrderSchema } from '#functions/core/intake/shop-order.js';
import { shopifyOrderSchema, shopifyToShopOrder } from '#functions/core/intake/shopify-order.js';
import { PARTNER_FROM_CHECKOUT_MARK } from '#functions/core/partner-from-checkout.js';
import { sampleOrder } from '#functions/local/intake-samples.js';
import { createManualClock } from '#functions/shared/clock.js';
import { registryOfOneEntry } from '../actions/registry-of-one.js';
import {
  listAll,
  recordEvent,
  recordingLogger,
  recordingPublisher,
  useActionTestBed,
} from '../actions/support.js';
import { effectsBetween, NO_EFFECTS, snapshot } from './support.js';

const clock = createManualClock({ start: '2026-03-04T10:00:00.000Z', autoAdvance: true });
const bed = useActionTestBed({ clock, sizes: { documents: 20, partners: 8 } });

const registrationNumberOf = (r: ApiRecord) =>
  (r as { IdentificationNumber?: string | null }).IdentificationNumber ?? null;

/** Mallory's Shopify order, naming a registered partner's IČO in a note attribute. */
function malloryOrder(ico: string) {
  const raw = sampleOrder('shopify', 7, new Date('2026-03-04T09:00:00Z')) as Record<string, unknown>;
  const order = {
    ...raw,
    email: 'mallory@evil.example',
    note_attributes: [{ name: 'ico', value: ico }],
  };
  const mapping = loadIntakeConfig({}).mapping;
  return shopOrderSchema.parse(
    shopifyToShopOrder(shopifyOrderSchema.parse(order), {
      registrationNumber: mapping.registrationNumberFields,
      vatNumber: mapping.vatNumberFields,
    }),
  );
}

describe('finding 1: customer-typed data never decides who is invoiced or sent anything', () => {
  it('by default, an IČO typed at checkout links no partner', async () => {
    const partner = (await listAll(bed.sb.client, 'BusinessPartners')).find(registrationNumberOf)!;
    const refs = await loadReferences(bed.sb.client);
    const order = malloryOrder(registrationNumberOf(partner)!);
    const request = mapShopOrder('shopify', order, refs, loadIntakeConfig({}).mapping, clock.now());
    expect(request.BusinessPartnerAddress).not.toHaveProperty('DocumentAddressWithAddressBookLink');
    expect(JSON.stringify(request.BusinessPartnerAddress)).not.toContain(partner.Id);
    expect(request.InternalNote).not.toContain(PARTNER_FROM_CHECKOUT_MARK);
  });

  it('matching switched on: the order is marked, and its invoice is held, not e-invoiced', async () => {
    const { sb, servers } = bed;
    const partner = (await listAll(sb.client, 'BusinessPartners')).find(registrationNumberOf)!;
    const ico = registrationNumberOf(partner)!;
    const refs = await loadReferences(sb.client);
    const mapping = loadIntakeConfig({ INTAKE_PARTNER_MATCH: 'registration-number' }).mapping;
    const request = mapShopOrder('shopify', malloryOrder(ico), refs, mapping, clock.now());
    expect(request.BusinessPartnerAddress).toMatchObject({
      DocumentAddressWithAddressBookLink: { Id: partner.Id },
    });
    expect(request.InternalNote).toContain(PARTNER_FROM_CHECKOUT_MARK);

    // The chain as the transfer actions run it: order → issue slip → invoice.
    const created = await sb.client.create('ReceivedOrders.create', { body: request });
    const slip = await sb.client.create('ReceivedOrders.transferToIssueSlip', {
      params: { id: created.data!.Id },
    });
    const invoiceId = (
      await sb.client.create('IssueSlips.transferToIssuedInvoice', { params: { id: slip.data!.Id } })
    ).data!.Id;
    const invoice = await sb.client.get('IssuedInvoices', invoiceId);
    expect((invoice.BusinessPartnerAddress as { IdentificationNumber?: string }).IdentificationNumber).toBe(
      ico,
    );

    // The partner list decides the channel here (sk defaults to the mandate's policy).
    const settings = { ACTIONS_EINVOICING: 'lists', ACTIONS_EINVOICE_PARTNERS: ico };
    const publisher = recordingPublisher();
    const guard = createPowertoolsGuard({
      client: servers.dynamoDb,
      tableName: await servers.idempotencyTable(),
      expiresAfterSeconds: 3600,
    });
    // The open sendings and the pre-flight's blocked invoices share the action state store, as deployed.
    const actionState = createDynamoDbCheckpointStore<OpenSendings>({
      client: servers.dynamoDb,
      tableName: await servers.checkpointTable(),
    });
    const logger = recordingLogger();
    // On the one per-connection path, the deployment's registry of one.
    const entry = registryOfOneEntry(
      sendInvoiceAction,
      settings,
      () => ({ api: sb.client, publisher, clock, logger, idempotency: guard, actionState }),
      logger,
    );
    const before = await snapshot(sb.sandbox);
    const result = await entry(recordEvent('IssuedInvoice', invoice), { remainingTimeMs: 30_000 });
    expect(result).toMatchObject({ status: 'skipped' });
    const held = publisher.events.filter((e) => e.detailType === SENDING_HELD);
    expect(held).toHaveLength(1);
    expect(held[0]!.detail).toMatchObject({
      reason: 'partnerFromCheckout',
      channel: 'einvoice',
      receivedOrder: { id: created.data!.Id },
    });
    // Nothing reached the network or the outbox; the held event is the only outcome.
    const effects = effectsBetween(
      before,
      await snapshot(sb.sandbox),
      publisher.events.filter((e) => e.detailType !== SENDING_HELD),
    );
    expect(effects).toEqual(NO_EFFECTS);
  });
});
