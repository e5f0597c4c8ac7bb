/**
 * The transfer chain, one row per step: which source record type triggers it, which transfer
 * operation it calls, and which collection the new document lands in. The routing table and the
 * transfer action both read this table.
 *
 * The chain depends on the service variant. The Slovak contract goes received order → issue slip →
 * issued invoice (plus offer → received order and issued order → received invoice); the Czech
 * service transfers a received order straight to an issued invoice, and an issued order to a
 * received invoice.
 */
import {
  type CollectionName,
  DEFAULT_SERVICE_VARIANT,
  type ServiceVariant,
} from '../../accounting/collections.js';
import type { TransferStep } from './config.js';

export interface TransferStepSpec {
  readonly step: TransferStep;
  /** Action name: part of the idempotency key and of outcome events. */
  readonly action: string;
  readonly sourceRecordType: 'ReceivedOrder' | 'IssueSlip' | 'IssuedOffer' | 'IssuedOrder';
  readonly sourceCollection: CollectionName;
  readonly targetRecordType: string;
  readonly targetCollection: CollectionName;
  /** Operation id in the endpoint catalog. */
  readonly operationId: string;
  /** Source statuses that still allow the transfer (anything else means "done or not transferable"). */
  readonly transferableStatuses: readonly string[];
}

const receivedOrderToIssuedInvoice: TransferStepSpec = {
  step: 'receivedOrderToIssuedInvoice',
  action: 'transfer.receivedOrderToIssuedInvoice',
  sourceRecordType: 'ReceivedOrder',
  sourceCollection: 'ReceivedOrders',
  targetRecordType: 'IssuedInvoice',
  targetCollection: 'IssuedInvoices',
  operationId: 'ReceivedOrders.transferToIssuedInvoice',
  transferableStatuses: ['Unfinished'],
};

/** The Slovak contract's chain (the default variant). */
export const transferSteps: readonly TransferStepSpec[] = [
  {
    step: 'receivedOrderToIssueSlip',
    action: 'transfer.receivedOrderToIssueSlip',
    sourceRecordType: 'ReceivedOrder',
    sourceCollection: 'ReceivedOrders',
    targetRecordType: 'IssueSlip',
    targetCollection: 'IssueSlips',
    operationId: 'ReceivedOrders.transferToIssueSlip',
    transferableStatuses: ['Unfinished'],
  },
  {
    step: 'issueSlipToIssuedInvoice',
    action: 'transfer.issueSlipToIssuedInvoice',
    sourceRecordType: 'IssueSlip',
    sourceCollection: 'IssueSlips',
    targetRecordType: 'IssuedInvoice',
    targetCollection: 'IssuedInvoices',
    operationId: 'IssueSlips.transferToIssuedInvoice',
    transferableStatuses: ['Unfinished'],
  },
  {
    step: 'issuedOfferToReceivedOrder',
    action: 'transfer.issuedOfferToReceivedOrder',
    sourceRecordType: 'IssuedOffer',
    sourceCollection: 'IssuedOffers',
    targetRecordType: 'ReceivedOrder',
    targetCollection: 'ReceivedOrders',
    operationId: 'IssuedOffers.transferToReceivedOrder',
    transferableStatuses: ['Unfinished'],
  },
  {
    step: 'issuedOrderToReceivedInvoice',
    action: 'transfer.issuedOrderToReceivedInvoice',
    sourceRecordType: 'IssuedOrder',
    sourceCollection: 'IssuedOrders',
    targetRecordType: 'ReceivedInvoice',
    targetCollection: 'ReceivedInvoices',
    operationId: 'IssuedOrders.transferToReceivedInvoice',
    transferableStatuses: ['Unfinished'],
  },
];

const stepsByVariant: Record<ServiceVariant, readonly TransferStepSpec[]> = {
  sk: transferSteps,
  cz: [
    receivedOrderToIssuedInvoice,
    ...transferSteps.filter((s) => s.step === 'issuedOrderToReceivedInvoice'),
  ],
};

/** The transfer steps the variant's service offers. */
export function transferStepsFor(variant: ServiceVariant): readonly TransferStepSpec[] {
  return stepsByVariant[variant];
}

export function findTransferStep(
  sourceRecordType: string,
  variant: ServiceVariant = DEFAULT_SERVICE_VARIANT,
): TransferStepSpec | undefined {
  return stepsByVariant[variant].find((s) => s.sourceRecordType === sourceRecordType);
}
