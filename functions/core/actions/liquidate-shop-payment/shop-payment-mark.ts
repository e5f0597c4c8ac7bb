/**
 * The mark a shop payment's liquidation carries in its note (at most 64 characters with the
 * order's number): a digest of the shop order and the payment id, found again by the read-back.
 */
import { createHash } from 'node:crypto';

export function shopPaymentMark(eshopOrderId: string, paymentId: string): string {
  const digest = createHash('sha256').update(`${eshopOrderId}\u0000${paymentId}`).digest('hex');
  return `[shop-pay ${digest.slice(0, 16)}]`;
}
