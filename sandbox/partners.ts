/** Business partners (the address book) in the service's DTO shape (`BusinessPartnerDto`). */
import type { ApiRecord } from '../functions/accounting/api.js';
import { shapeAs } from './dto-fields.js';
import { notFound, validationError } from './http.js';
import type { NationalData } from './national-data.js';

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

/**
 * `AddressResolutionMode: "ByIdentificationNumber"`: the company of that IČO from the variant's
 * built-in registry (its VAT id as the tax number where it has one), or nothing for another mode.
 */
export function resolveFromRegistry(
  n: NationalData,
  input: { AddressResolutionMode?: string; IdentificationNumber?: string | null },
): Record<string, unknown> {
  if (input.AddressResolutionMode !== 'ByIdentificationNumber') return {};
  if (!input.IdentificationNumber) {
    throw validationError('IdentificationNumber', "'IdentificationNumber' must not be empty.");
  }
  const found = n.registry.find((r) => r.IdentificationNumber === input.IdentificationNumber);
  if (!found)
    throw notFound(`No company with registration number '${input.IdentificationNumber}' in the registry.`);
  const { VatIdentificationNumber: vat, ...rest } = found;
  return {
    ...rest,
    TaxIdentificationNumber: vat ?? rest.TaxIdentificationNumber ?? null,
    Country: n.country,
  };
}
