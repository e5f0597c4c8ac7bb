/**
 * Renders the event catalog as Markdown (`docs/events.md`) and as JSON Schema files
 * (`events/schemas/<DetailType>.json` + `index.json`) from the catalog it is given (the full one is
 * composed in `core/event-catalog.ts`). Pure: returns file contents.
 */

import { toJsonSchemas } from './catalog.js';
import { type CatalogEntry, EVENT_CATALOG_VERSION } from './catalog-entry.js';

/** Catalog changelog, newest first (rendered into docs/events.md). */
export const catalogChangelog: readonly { version: number; changes: readonly string[] }[] = [
  {
    version: 8,
    changes: [
      'New: `EInvoicing.ReadinessReported`: the daily e-invoicing readiness report of a connection was written to the archive bucket (`reports/einvoicing/<connection>/<day>.json`), with its counts, the rules it would block on and how many partners to fix or without a DIČ (docs/einvoicing.md). Additive: no existing detail-type changed.',
      "New: `EshopOrder.Paid` (a shop reported an order paid: Shopify `orders/paid`, WooCommerce's paid order, Shoptet `order:paid`), `IssuedInvoice.ShopPaymentRecorded` (that payment liquidated the invoice made from the order) and `EshopOrder.PaymentUnmatched` (it could not be: no order, no invoice, another currency, overpaid…; docs/payments.md). Additive: no existing detail-type changed.",
      'From this version on the catalog version is generated (`functions/core/events/catalog-version.ts`): it moves whenever a schema is added, removed or changed.',
    ],
  },
  {
    version: 7,
    changes: [
      '`IssuedInvoice.EInvoiceStatusChanged` may carry `mls`: the Message Level Status of the step on the Slovak leg (`code` AP, AB or RE; `reasons` with `code` SV, BV, BW or FD, the `ruleIds` and the `description` the network gives), null when the network gives none. `responseCode` keeps the Invoice Response code where a network gives one. Additive: a version 6 detail, without `mls`, is still valid.',
      'New: `IssuedInvoice.EInvoiceBlocked`: the e-invoicing pre-flight kept an issued invoice from the network (the rules, the fields to fix, the partner; docs/einvoicing.md). Additive: no existing detail-type changed.',
    ],
  },
  {
    version: 6,
    changes: [
      "New: `IssuedInvoice.PaymentReminderSent` and `IssuedAdvanceInvoice.PaymentReminderSent`: a payment reminder (stage 1 or 2) of an overdue document was handed to the service's e-mail sending (opt-in `ACTIONS_PAYMENT_REMINDERS`, docs/payments.md). Additive: no existing detail-type changed.",
      'The action outcomes are listed in the order of the action registry (each action declares its own): `IssuedInvoice.EInvoiceStatusChanged` now follows `IssuedInvoice.EmailSent` and `IssuedInvoice.SendingHeld`. No schema changed.',
    ],
  },
  {
    version: 5,
    changes: [
      'New: `IssuedInvoice.Paid`, `IssuedInvoice.PartiallyPaid`, `IssuedInvoice.Overdue` and the same three for `IssuedAdvanceInvoice`: the payment state of issued (advance) invoices, from the payment detector (docs/payments.md). Additive: no existing detail-type changed.',
    ],
  },
  {
    version: 4,
    changes: [
      '`EshopOrder.Rejected` may carry `reason: "totals"` with `totals` (`currency`, the shop\'s, ours and, at stage `service`, the service\'s total with VAT and VAT per rate) and, at stage `service`, the `receivedOrderId` the service created with other totals. Additive: the existing fields are unchanged.',
    ],
  },
  {
    version: 3,
    changes: [
      'New: `Connection.Unhealthy` (once when a connection stops working as a whole: refused credentials, a missing or malformed secret, no answer) and `Connection.Recovered` (once when it works again). Additive: no existing detail-type changed.',
    ],
  },
  {
    version: 2,
    changes: [
      'Record types follow the real DTO names of the service: `PostalCode` → `CityPostCode`, `BusinessPremise` → `Establishment`, `PaymentTypeKind` → `PaymentMethodType`, `PaymentForm` → `PaymentMethod`, `SerialNumber` → `RegistrationNumber`, `SalesPrice` → `SellingPrice`, `District` → `Region` (each with `.Created`, `.Updated`, `.Deleted`). Subscribers to the old detail-types must switch to the new ones; the envelope (`version` 1) is unchanged.',
      'New: `IssuedInvoiceCorrectiveTaxDocument.Created|Updated|Deleted` (credit and debit notes of the Czech service variant).',
      'Reference-list events may carry a `modifiedDate` (Czech variant, where the lists carry `ModificationInfo`, `ModifiedDate` only on general lists); it stays `null` in the Slovak variant.',
      'New: `ReceivedOrder.Transferred` may name an `IssuedInvoice` target with the action `transfer.receivedOrderToIssuedInvoice` (Czech variant).',
    ],
  },
  { version: 1, changes: ['First catalog.'] },
];

/** Where the header names the catalog version (filled in by `renderEventsMarkdown`). */
const VERSION_MARK = '@@catalog-version@@';

const HEADER = `# Events

<!-- Generated from the event catalog (functions/core/event-catalog.ts) by \`npx tsx functions/local/write-schemas.ts\`. Do not edit. -->

Every event the product puts on the bus. \`detail-type\` is \`<RecordType>.<Change>\` for record
changes (one triple per collection of \`functions/accounting/collections.ts\`) plus the action
outcomes. \`source\` is \`accounting.<connection>\` by default (setting \`EVENT_SOURCE\` replaces it
with one fixed source). JSON Schemas (draft 2020-12, generated from the zod schemas) are committed
in \`events/schemas/\`, one file per detail-type.

Catalog version: **${VERSION_MARK}** (the set of detail-types and their schemas; see the
[changelog](#changelog)). The envelope version below changes only when the envelope's own fields do.

## Envelope (record events)

| field | meaning |
|---|---|
| \`version\` | envelope version (\`1\`); bumped on a breaking change |
| \`connection\` | the accounting connection (company) the record belongs to |
| \`recordType\` | e.g. \`IssuedInvoice\` |
| \`id\` | the record's \`Id\` |
| \`change\` | \`Created\`, \`Updated\` or \`Deleted\` |
| \`modifiedDate\` | the service's \`ModificationInfo.ModifiedDate\` of this version, verbatim; \`null\` for reference records and deletions |
| \`idempotencyKey\` | hex SHA-256 of (connection, recordType, id, ModifiedDate) — \`content:<sha256>\` of the record for reference lists, \`deleted\` for deletions; equal for every delivery of the same version, so consumers dedupe on it |
| \`record\` | the record as the service returned it (unknown fields pass through) |
| \`recordRef\` | instead of \`record\` when the event would exceed the size limit: \`{ bucket?, key, sha256, size }\` of the JSON stored in the object store; \`resolveRecord(detail, objectStore)\` returns the record either way |

Delivery is at least once: the same version may arrive more than once (after a crash between
publishing and checkpointing, or inside the poller's lookback overlap when its dedupe state overflows);
it then carries the same \`idempotencyKey\`.
`;

function section(entry: CatalogEntry): string {
  return [
    `### \`${entry.detailType}\``,
    '',
    entry.description,
    '',
    `Schema: [\`events/schemas/${entry.detailType}.json\`](../events/schemas/${entry.detailType}.json)`,
    '',
    '```json',
    JSON.stringify(entry.example, null, 2),
    '```',
    '',
  ].join('\n');
}

export function renderEventsMarkdown(
  catalog: readonly CatalogEntry[],
  version: number = EVENT_CATALOG_VERSION,
): string {
  const index = [
    '## Index',
    '',
    '| detail-type | description |',
    '|---|---|',
    ...catalog.map(
      (e) =>
        `| [\`${e.detailType}\`](#${e.detailType.toLowerCase().replace(/\./g, '')}) | ${e.description} |`,
    ),
    '',
    '## Events',
    '',
  ].join('\n');
  const changelog = [
    '## Changelog',
    '',
    ...catalogChangelog.flatMap((entry) => [
      `### Catalog version ${entry.version}`,
      '',
      ...entry.changes.map((c) => `- ${c}`),
      '',
    ]),
  ].join('\n');
  const header = HEADER.replace(VERSION_MARK, String(version));
  return `${header}\n${index}\n${catalog.map(section).join('\n')}\n${changelog}`;
}

/** `events/schemas` contents: file name → text. */
export function renderSchemaFiles(
  catalog: readonly CatalogEntry[],
  version: number = EVENT_CATALOG_VERSION,
): Map<string, string> {
  const files = new Map<string, string>();
  const schemas = toJsonSchemas(catalog);
  for (const [detailType, schema] of Object.entries(schemas)) {
    files.set(`${detailType}.json`, `${JSON.stringify(schema, null, 2)}\n`);
  }
  const index = catalog.map((e) => ({
    detailType: e.detailType,
    description: e.description,
    file: `${e.detailType}.json`,
  }));
  files.set('index.json', `${JSON.stringify({ catalogVersion: version, events: index }, null, 2)}\n`);
  return files;
}
