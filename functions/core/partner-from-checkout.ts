/**
 * The mark an e-shop order carries when the intake linked it to an address-book partner on data
 * the customer typed at checkout (an IČO in a note attribute, an e-mail): the order intake writes
 * it into the received order's `InternalNote`, and the sending action holds every invoice made
 * from such an order for a person instead of sending it to that partner.
 */

export const PARTNER_FROM_CHECKOUT_MARK = '[partner-from-checkout]';

/** `true` when a received order's `InternalNote` carries the mark. */
export function hasPartnerFromCheckoutMark(internalNote: unknown): boolean {
  return typeof internalNote === 'string' && internalNote.includes(PARTNER_FROM_CHECKOUT_MARK);
}
