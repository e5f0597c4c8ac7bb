/**
 * The transfer chain, one row per step: which source record type triggers it, which transfer
 * operation it calls, and which collection the new document lands in. The routing table and the
 * transfer action both read this table.
 */
import type { CollectionName } from '../../accounting/collections.js';
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

export function findTransferStep(sourceRecordType: string): TransferStepSpec | undefined {
  return transferSteps.find((s) => s.sourceRecordType === sourceRecordType);
}
