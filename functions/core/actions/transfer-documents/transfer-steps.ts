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
  type RecordType,
  type ServiceVariant,
} from '#functions/accounting/collections.js';
import type { TransferStep } from './settings.js';

export interface TransferStepSpec<S extends RecordType = TransferSourceType> {
  readonly step: TransferStep;
  /** Action name: part of the idempotency key and of outcome events. */
  readonly action: string;
  /** Id of the route that triggers this step (names its rule, queue and function). */
  readonly routeId: string;
  readonly sourceRecordType: S;
  readonly sourceCollection: CollectionName;
  readonly targetRecordType: RecordType;
  readonly targetCollection: CollectionName;
  /** Operation id in the endpoint catalog. */
  readonly operationId: string;
  /** Source statuses that still allow the transfer (anything else means "done or not transferable"). */
  readonly transferableStatuses: readonly string[];
}

const receivedOrderToIssuedInvoice = {
  step: 'receivedOrderToIssuedInvoice',
  action: 'transfer.receivedOrderToIssuedInvoice',
  routeId: 'transfer-received-order-to-invoice',
  sourceRecordType: 'ReceivedOrder',
  sourceCollection: 'ReceivedOrders',
  targetRecordType: 'IssuedInvoice',
  targetCollection: 'IssuedInvoices',
  operationId: 'ReceivedOrders.transferToIssuedInvoice',
  transferableStatuses: ['Unfinished'],
} as const satisfies TransferStepSpec<RecordType>;

const skSteps = [
  {
    step: 'receivedOrderToIssueSlip',
    action: 'transfer.receivedOrderToIssueSlip',
    routeId: 'transfer-received-order',
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
    routeId: 'transfer-issue-slip',
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
    routeId: 'transfer-issued-offer',
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
    routeId: 'transfer-issued-order',
    sourceRecordType: 'IssuedOrder',
    sourceCollection: 'IssuedOrders',
    targetRecordType: 'ReceivedInvoice',
    targetCollection: 'ReceivedInvoices',
    operationId: 'IssuedOrders.transferToReceivedInvoice',
    transferableStatuses: ['Unfinished'],
  },
] as const satisfies readonly TransferStepSpec<RecordType>[];

/** A record type some transfer step starts from (in either variant). */
export type TransferSourceType =
  | (typeof skSteps)[number]['sourceRecordType']
  | (typeof receivedOrderToIssuedInvoice)['sourceRecordType'];

/** The Slovak contract's chain (the default variant). */
export const transferSteps: readonly TransferStepSpec[] = skSteps;

const stepsByVariant: Record<ServiceVariant, readonly TransferStepSpec[]> = {
  sk: transferSteps,
  cz: [
    receivedOrderToIssuedInvoice,
    ...transferSteps.filter((s) => s.step === 'issuedOrderToReceivedInvoice'),
  ],
};

/** Every step of any variant, each once. */
export const allTransferSteps: readonly TransferStepSpec[] = [
  ...new Set(Object.values(stepsByVariant).flat()),
];

/** Every record type a transfer starts from (either variant), in the order of the Slovak chain. */
export const transferSourceTypes: readonly TransferSourceType[] = [
  ...new Set(allTransferSteps.map((s) => s.sourceRecordType)),
];

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
