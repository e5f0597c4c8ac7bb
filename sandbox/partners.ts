/** Business partners (the address book) in the service's DTO shape (`BusinessPartnerDto`). */
import type { ApiRecord } from '../functions/accounting/api.js';
import { shapeAs } from './dto-fields.js';

/** Values of `BusinessDetails` a partner gets unless told otherwise. */
export function defaultBusinessDetails(textItemVatRateId: string | null): Record<string, unknown> {
  return {
    DuePeriod: 14,
    TextItemVatRateId: textItemVatRateId,
    DocumentVariableSymbolSource: 'DocumentNumber',
  };
}

/** A partner's values reduced to exactly `BusinessPartnerDto` (nested objects too; absent ones null). */
export function shapePartner(values: Record<string, unknown>): ApiRecord {
  const details = (values.BusinessDetails ?? {}) as Record<string, unknown>;
  const additional = (values.AdditionalDetails ?? {}) as Record<string, unknown>;
  const deliveries = (values.DeliveryAddresses as Record<string, unknown>[] | null | undefined) ?? [];
  return shapeAs('BusinessPartnerDto', {
    ...values,
    BusinessDetails: shapeAs('BusinessPartnerBusinessDetailsDto', {
      DocumentVariableSymbolSource: 'DocumentNumber',
      ...details,
    }),
    AdditionalDetails: shapeAs('BusinessPartnerAdditionalDetailsDto', additional),
    DeliveryAddresses: deliveries.map((d) =>
      shapeAs('BusinessPartnerDeliveryAddressDto', {
        IsDefault: false,
        ModificationInfo: values.ModificationInfo,
        ...d,
      }),
    ),
  }) as ApiRecord;
}
