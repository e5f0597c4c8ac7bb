/**
 * Property names of the service's response DTOs, in the order the vendor's public OpenAPI description
 * (Czech variant) lists them. The sandbox builds every record it serves from these lists: each property
 * present (null where unset), none other. Keep in step with the description when it changes.
 */

const dtoFieldNames = {
  ActivityDto: 'Id Code Name Note ModificationInfo',
  BankAccountDto:
    'Id AccountName AccountNumber BankCode Iban Swift BankName CancellationDate CurrencyId IsActive ModificationInfo',
  BankDto: 'ModificationInfo Id Code Name Swift Web CountryId',
  BusinessPartnerAdditionalDetailsDto: 'Groups Keys Message',
  BusinessPartnerBusinessDetailsDto:
    'Number Contract DuePeriod SellingPrice CurrencyId PaymentTypeId CentreId ActivityId TextItemVatRateId PriceListItemVatRateId DocumentVariableSymbolSource',
  BusinessPartnerDeliveryAddressDto:
    'Id CompanyName Name Street PostCode Division City Country Email PhoneNumber IsDefault ModificationInfo',
  BusinessPartnerDto:
    'IdentificationNumber TaxIdentificationNumber CompanyName Name Street PostCode Division City Country Email PhoneNumber MobilePhoneNumber FaxNumber Web Note InternalNote BusinessDetails AdditionalDetails DeliveryAddresses ModificationInfo Id RegionId',
  CashRegisterDto: 'Id Code Name CurrencyId CancellationDate IsActive ModificationInfo',
  CentreDto: 'Id Code Name Note EstablishmentId ModificationInfo',
  CityPostCodeDto: 'ModificationInfo Id City PostCode PostName',
  CountryDto: 'ModificationInfo Id Code Name NumericCode',
  CurrencyDto: 'ModificationInfo Id Code Name Symbol',
  DocumentAddressDto:
    'DeliveryAddress BusinessPartnerId IdentificationNumber TaxIdentificationNumber CompanyName Name Street PostCode Division City Country Email PhoneNumber MobilePhoneNumber FaxNumber',
  DocumentAddressWithoutDeliveryAddressDto:
    'BusinessPartnerId IdentificationNumber TaxIdentificationNumber CompanyName Name Street PostCode Division City Country Email PhoneNumber MobilePhoneNumber FaxNumber',
  DocumentDeliveryAddressDto:
    'DeliveryAddressId CompanyName Name Street PostCode Division City Country Email PhoneNumber',
  DocumentPaymentStatusDto: 'Id Number RestToPay LiquidationInfos ModificationInfo',
  DocumentRecapitulationDto:
    'TotalPrice ForeignCurrencyTotalPriceWithoutRounding ForeignCurrencyTotalPrice ForeignCurrencyRoundingAmount VatRounding Rounding VatRateSums',
  DocumentVatRateSumDto: 'PriceWithoutVat Vat TotalPrice VatRateType',
  EstablishmentDto:
    'Id Code Name Note Street PostCode City Email PhoneNumber MobilePhoneNumber FaxNumber ModificationInfo',
  ExchangeRateDto: 'ModificationInfo Id CurrencyId Rate Quantity',
  ExchangeRateSetDto: 'ModificationInfo Id Date ExchangeRates',
  GeneralListItemModificationInfoDto: 'ModifiedDate',
  IssueSlipDto:
    'Status OrderNumber OrderDate PaymentMethodId SellingPriceCode IssueDate CurrencyId ExchangeRate ExchangeRateQuantity DocumentNumber Text ContractNumber Note InternalNote IsSynchronizationToPhEnabled CentreId ActivityId BusinessPartnerAddress Items ModificationInfo DocumentRecapitulation Id IsReverseCharge',
  IssueSlipItemDto:
    'Code Text UnitPrice Quantity Unit ForeignCurrencyUnitPrice ForeignCurrencyWithoutVat ForeignCurrencyVat VatRateType VatRateId UnitPriceVatType PriceWithoutVat Vat PriceWithVat PriceListItemId Note CentreId ActivityId DiscountPercentage Id ReceivedOrderItemId TransferredQuantity RegistrationNumberId RegistrationNumberName',
  IssuedAdvanceInvoiceDto:
    'DueDate VariableSymbol OrderNumber OrderDate BankAccountId CashRegisterId PaymentMethodId SellingPriceCode IssueDate CurrencyId ExchangeRate ExchangeRateQuantity DocumentNumber Text ContractNumber Note InternalNote IsSynchronizationToPhEnabled CentreId ActivityId BusinessPartnerAddress Items ModificationInfo DocumentRecapitulation Id',
  IssuedAdvanceInvoiceItemDto:
    'Code Text UnitPrice Quantity Unit ForeignCurrencyUnitPrice ForeignCurrencyWithoutVat ForeignCurrencyVat VatRateType VatRateId UnitPriceVatType PriceWithoutVat Vat PriceWithVat PriceListItemId Note CentreId ActivityId DiscountPercentage Id',
  IssuedInvoiceCorrectiveTaxDocumentDto:
    'CorrectedDocumentId BankAccountId CashRegisterId DueDate TaxDate VariableSymbol OrderNumber OrderDate PaymentMethodId IssueDate CurrencyId ExchangeRate ExchangeRateQuantity DocumentNumber Text ContractNumber Note InternalNote IsSynchronizationToPhEnabled CentreId ActivityId BusinessPartnerAddress Items ModificationInfo DocumentRecapitulation Id',
  IssuedInvoiceCorrectiveTaxDocumentItemDto:
    'RegistrationNumberId RegistrationNumberName Code Text UnitPrice Quantity Unit ForeignCurrencyUnitPrice ForeignCurrencyWithoutVat ForeignCurrencyVat VatRateType VatRateId UnitPriceVatType PriceWithoutVat Vat PriceWithVat PriceListItemId Note CentreId ActivityId DiscountPercentage Id',
  IssuedInvoiceDto:
    'SellingPriceCode BankAccountId CashRegisterId DueDate TaxDate VariableSymbol OrderNumber OrderDate PaymentMethodId IssueDate CurrencyId ExchangeRate ExchangeRateQuantity DocumentNumber Text ContractNumber Note InternalNote IsSynchronizationToPhEnabled CentreId ActivityId BusinessPartnerAddress Items ModificationInfo DocumentRecapitulation Id IsReverseCharge',
  IssuedInvoiceItemDto:
    'RegistrationNumberId RegistrationNumberName Code Text UnitPrice Quantity Unit ForeignCurrencyUnitPrice ForeignCurrencyWithoutVat ForeignCurrencyVat VatRateType VatRateId UnitPriceVatType PriceWithoutVat Vat PriceWithVat PriceListItemId Note CentreId ActivityId DiscountPercentage Id ReceivedOrderItemId',
  IssuedOfferDto:
    'ValidTo Status DetailText DetailTextInEnglish SellingPriceCode IssueDate CurrencyId ExchangeRate ExchangeRateQuantity DocumentNumber Text ContractNumber Note InternalNote IsSynchronizationToPhEnabled CentreId ActivityId BusinessPartnerAddress Items ModificationInfo DocumentRecapitulation Id IsReverseCharge',
  IssuedOfferItemDto:
    'Code Text UnitPrice Quantity Unit ForeignCurrencyUnitPrice ForeignCurrencyWithoutVat ForeignCurrencyVat VatRateType VatRateId UnitPriceVatType PriceWithoutVat Vat PriceWithVat PriceListItemId Note CentreId ActivityId DiscountPercentage Id TransferredQuantity RegistrationNumberId RegistrationNumberName',
  IssuedOrderDto:
    'RequiredDeliveryDate ActualDeliveryDate Status PaymentMethodId IssueDate CurrencyId ExchangeRate ExchangeRateQuantity DocumentNumber Text ContractNumber Note InternalNote IsSynchronizationToPhEnabled CentreId ActivityId BusinessPartnerAddress Items ModificationInfo DocumentRecapitulation Id IsReverseCharge',
  IssuedOrderItemDto:
    'DeliveredQuantity RegistrationNumberId RegistrationNumberName Code Text UnitPrice Quantity Unit ForeignCurrencyUnitPrice ForeignCurrencyWithoutVat ForeignCurrencyVat VatRateType VatRateId UnitPriceVatType PriceWithoutVat Vat PriceWithVat PriceListItemId Note CentreId ActivityId DiscountPercentage Id',
  LiquidationDto: 'Id IssuedInvoiceId HomeCurrencyAmount DocumentCurrencyAmount Date Note ModificationInfo',
  LiquidationInfoDto: 'Id Date DocumentCurrencyAmount',
  ModificationInfoDto: 'CreatedDate CreatedBy ModifiedDate ModifiedBy',
  PaymentMethodDto:
    'Id Name Description PaymentMethodTypeId IsUsedInSaleVoucher IsUsedInOtherAgendas IsIncludedInEet CurrencyId CurrencyRate CurrencyQuantity TicketValue AdditionalTextForPrint AdditionalEnglishTextForPrint ModificationInfo',
  PaymentMethodTypeDto: 'ModificationInfo Id Code Name Description',
  PriceListItemAvailableQuantityDto:
    'Id EffectiveAvailableQuantity AvailableQuantity ReservedQuantity ComplaintQuantity ReceivedOrderQuantity',
  PriceListItemDto:
    'Id Type RegistrationNumberType Code Name Plu Ean Text WarehouseDivisionPath WarehouseDivisionId UnitQuantity Unit UnitPrice DiscountPercentage UnitPriceVatType VatRate IsSales PriceGroup Note InternalNote SubItems ModificationInfo',
  PriceListItemSellingPriceDto: 'SellingPriceName Price SellingPriceId',
  PriceListItemWithSellingPricesDto: 'Id SellingPrices',
  PriceListSubItemDto: 'PriceListItemId Quantity',
  ReceivedInvoiceDto:
    'SupplierInfo CashRegisterId DueDate TaxDate VariableSymbol OrderNumber OrderDate PaymentMethodId IssueDate CurrencyId ExchangeRate ExchangeRateQuantity DocumentNumber Text ContractNumber Note InternalNote IsSynchronizationToPhEnabled CentreId ActivityId BusinessPartnerAddress Items ModificationInfo DocumentRecapitulation Id IsReverseCharge',
  ReceivedInvoiceItemDto:
    'RegistrationNumberId RegistrationNumberName Code Text UnitPrice Quantity Unit ForeignCurrencyUnitPrice ForeignCurrencyWithoutVat ForeignCurrencyVat VatRateType VatRateId UnitPriceVatType PriceWithoutVat Vat PriceWithVat PriceListItemId Note CentreId ActivityId DiscountPercentage Id IssuedOrderItemId',
  ReceivedOrderDto:
    'ExecuteFromDate ExecuteToDate SellingPriceCode IsReserved Status PaymentMethodId IssueDate CurrencyId ExchangeRate ExchangeRateQuantity DocumentNumber Text ContractNumber Note InternalNote IsSynchronizationToPhEnabled CentreId ActivityId BusinessPartnerAddress Items ModificationInfo DocumentRecapitulation Id IsReverseCharge',
  ReceivedOrderItemDto:
    'DeliveredQuantity RegistrationNumberId RegistrationNumberName Code Text UnitPrice Quantity Unit ForeignCurrencyUnitPrice ForeignCurrencyWithoutVat ForeignCurrencyVat VatRateType VatRateId UnitPriceVatType PriceWithoutVat Vat PriceWithVat PriceListItemId Note CentreId ActivityId DiscountPercentage Id IssuedOfferItemGuid',
  RegionDto: 'ModificationInfo Id Code Name',
  RegistrationNumberDto:
    'Id Name AvailableQuantity ComplaintQuantity ServicedQuantity PriceListItemId ModificationInfo',
  SellingPriceDto:
    'Id Code Name SellingPriceType ValidityType ValidFrom ValidTo Margin Rebate Discount PriceVatType Rounding ExchangeRate CurrencyId ModificationInfo',
  SupplierInfoDto: 'BankAccountNumber BankCode MessageForRecipient DocumentNumber',
  VatRateDto: 'ModificationInfo Id Code Name VatRateType ValidFrom ValidTo VatPercent VatCoefficient',
  WarningDto: 'Code Message',
} as const;

export type DtoName = keyof typeof dtoFieldNames;

const cache = new Map<DtoName, readonly string[]>();

/** The property names of one DTO. */
export function dtoFields(name: DtoName): readonly string[] {
  let fields = cache.get(name);
  if (!fields) {
    fields = dtoFieldNames[name].split(' ');
    cache.set(name, fields);
  }
  return fields;
}

/** `values` reduced to exactly the properties of `name`, in its order; absent ones are null. */
export function shapeAs(name: DtoName, values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of dtoFields(name)) out[field] = values[field] ?? null;
  return out;
}

/**
 * Shapes of lists only the Slovak contract names (not in the public OpenAPI): assumed, modelled on
 * the nearest real DTO, and never served by the `cz` variant.
 */
export const assumedDtoFields = {
  VatClassificationDto: ['Id', 'Code', 'Name', 'ModificationInfo'],
} as const;
