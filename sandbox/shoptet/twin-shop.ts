/** The Shoptet twin playing the shop: orders are created, updated and paid, each event notified. */
import {
  type OrderShape,
  randomShape,
  seededRandom,
  shoptetOrder,
  shoptetTime,
  type TwinOrder,
} from './shoptet-orders.js';
import type { Notify } from './twin-notifier.js';
import type { TwinState } from './twin-state.js';

export interface TwinShop {
  /** Makes an order of `shape` (random when left out), without notifying it. */
  makeOrder(shape: Partial<OrderShape> | undefined, seed: number | undefined): TwinOrder;
  /** Makes an order of `shape` (random when left out) and notifies `order:create`. */
  createOrder(shape?: Partial<OrderShape>, seed?: number): Promise<TwinOrder>;
  /** Changes an order (its change time) and notifies `order:update`. */
  updateOrder(code: string): Promise<void>;
  /** Marks an order paid and notifies `order:paid` (only an unpaid order becomes paid). */
  payOrder(code: string): Promise<void>;
}

export function createTwinShop(state: TwinState, notify: Notify): TwinShop {
  const { orders } = state;
  const touch = (order: TwinOrder) => {
    order.changeTime = shoptetTime(new Date());
  };
  const makeOrder = (shape: Partial<OrderShape> | undefined, seed: number | undefined) => {
    const random = seededRandom(seed ?? Math.floor(Math.random() * 2 ** 31));
    const code = String(state.nextCode++);
    const order = shoptetOrder(code, { ...randomShape(random), ...shape }, random, new Date());
    orders.set(code, order);
    return order;
  };
  return {
    makeOrder,
    async createOrder(shape, seed) {
      const order = makeOrder(shape, seed);
      await notify('order:create', order.code);
      return order;
    },
    async updateOrder(code) {
      const order = orders.get(code);
      if (!order) throw new Error(`no order ${code}`);
      touch(order);
      await notify('order:update', code);
    },
    async payOrder(code) {
      const order = orders.get(code);
      if (!order) throw new Error(`no order ${code}`);
      if (order.paid === true) return;
      order.paid = true;
      touch(order);
      await notify('order:paid', code);
    },
  };
}
