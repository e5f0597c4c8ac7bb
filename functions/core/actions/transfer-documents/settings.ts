/** The transfer chain's settings: each step switched on or off (`config.transfers`). */
import { defineActionSettings, flag, type SectionOf } from '../action-settings.js';

export const transferSettings = defineActionSettings(
  'transfers',
  {
    ACTIONS_TRANSFER_RECEIVED_ORDER_TO_ISSUED_INVOICE: {
      schema: flag(true),
      default: 'true',
      description: 'transfer step on/off (variant `cz` only)',
    },
    ACTIONS_TRANSFER_RECEIVED_ORDER_TO_ISSUE_SLIP: {
      schema: flag(true),
      default: 'true',
      description: 'transfer step on/off (variant `sk` only)',
    },
    ACTIONS_TRANSFER_ISSUE_SLIP_TO_ISSUED_INVOICE: {
      schema: flag(true),
      default: 'true',
      description: 'transfer step on/off (variant `sk` only)',
    },
    ACTIONS_TRANSFER_ISSUED_OFFER_TO_RECEIVED_ORDER: {
      schema: flag(false),
      default: 'false',
      description: 'transfer step on/off (variant `sk` only)',
    },
    ACTIONS_TRANSFER_ISSUED_ORDER_TO_RECEIVED_INVOICE: {
      schema: flag(false),
      default: 'false',
      description: 'transfer step on/off',
    },
  },
  (e) => ({
    receivedOrderToIssuedInvoice: e.ACTIONS_TRANSFER_RECEIVED_ORDER_TO_ISSUED_INVOICE,
    receivedOrderToIssueSlip: e.ACTIONS_TRANSFER_RECEIVED_ORDER_TO_ISSUE_SLIP,
    issueSlipToIssuedInvoice: e.ACTIONS_TRANSFER_ISSUE_SLIP_TO_ISSUED_INVOICE,
    issuedOfferToReceivedOrder: e.ACTIONS_TRANSFER_ISSUED_OFFER_TO_RECEIVED_ORDER,
    issuedOrderToReceivedInvoice: e.ACTIONS_TRANSFER_ISSUED_ORDER_TO_RECEIVED_INVOICE,
  }),
);

/** A step of the chain (the keys of `config.transfers`). */
export type TransferStep = keyof SectionOf<typeof transferSettings>;

declare module '../config.js' {
  interface ActionSections {
    transfers: SectionOf<typeof transferSettings>;
  }
}
