/**
 * Price-list reads beyond the plain list: serial numbers of one item, available quantities and
 * selling prices of items given by id (`POST` with `ByIdListRequest { Ids }`, a read).
 * The public description shows one DTO as the answer of the two `POST`s; as they take a list of
 * ids, the sandbox answers a JSON array of that DTO, one per id found (assumed).
 */
import * as z from 'zod';
import type { ApiRecord } from '../functions/accounting/api.js';
import { shapeAs } from './dto-fields.js';
import { GUID_PATTERN, hashString, money } from './random.js';
import type { SandboxState } from './state.js';
import { validate } from './validation.js';

const byIdsSchema = z.looseObject({ Ids: z.array(z.string().regex(GUID_PATTERN, 'must be a GUID')).min(1) });

function itemsById(state: SandboxState, body: unknown): ApiRecord[] {
  const input = validate(byIdsSchema, body);
  const wanted = [...new Set(input.Ids.map((id) => id.toLowerCase()))];
  return wanted.map((id) => state.get('PriceListItems', id)).filter((r): r is ApiRecord => r !== undefined);
}

/** `POST /v1/PriceListItems/AvailableQuantities`. */
export function availableQuantities(state: SandboxState, body: unknown): Record<string, unknown>[] {
  return itemsById(state, body).map((item) => {
    const stock = Number(item.UnitQuantity ?? 0);
    const reserved = hashString(item.Id) % 5;
    const ordered = hashString(`${item.Id}:ordered`) % 7;
    return shapeAs('PriceListItemAvailableQuantityDto', {
      Id: item.Id,
      EffectiveAvailableQuantity: stock - reserved,
      AvailableQuantity: stock,
      ReservedQuantity: reserved,
      ComplaintQuantity: 0,
      ReceivedOrderQuantity: ordered,
    });
  });
}

/** `POST /v1/PriceListItems/SellingPrices`: the item's price under every selling price. */
export function sellingPrices(state: SandboxState, body: unknown): Record<string, unknown>[] {
  const prices = state.refs.lists.get('SellingPrices') ?? [];
  return itemsById(state, body).map((item) =>
    shapeAs('PriceListItemWithSellingPricesDto', {
      Id: item.Id,
      SellingPrices: prices.map((p) =>
        shapeAs('PriceListItemSellingPriceDto', {
          SellingPriceName: p.Name ?? p.Code,
          Price: money(Number(item.UnitPrice ?? 0) * (1 - Number(p.Discount ?? 0) / 100)),
          SellingPriceId: p.Id,
        }),
      ),
    }),
  );
}
