/**
 * Outcomes of the transfer action, declared beside it: `<Source>.Transferred`, one per source type
 * of the transfer table. They enter the catalog through the action's registry entry.
 */
import * as z from 'zod';
import { recordIdSchema } from '#functions/accounting/record-id.js';
import { actionBase, exampleActionBase, exampleIds } from '#functions/core/events/action-events.js';
import { type CatalogEntry, withArticle } from '#functions/core/events/catalog-entry.js';
import { type TransferSourceType, transferSourceTypes, transferSteps } from './transfer-steps.js';

export type TransferredType = `${TransferSourceType}.Transferred`;

export function transferredType(sourceType: TransferSourceType): TransferredType {
  return `${sourceType}.Transferred`;
}

const warningSchema = z.looseObject({ Code: z.string(), Message: z.string() });

export function transferredSchema(sourceType: TransferSourceType) {
  return z
    .object({
      ...actionBase(z.literal(sourceType), 'Transferred'),
      target: z
        .object({
          recordType: z.string().min(1),
          id: recordIdSchema.describe('`Id` of the new document.'),
          documentNumber: z.string().nullable().describe('`DocumentNumber` of the new document.'),
        })
        .describe('The document the transfer created.'),
      warnings: z.array(warningSchema).describe('Warnings of the service; the document was created.'),
      recovered: z
        .boolean()
        .describe('`true` when an earlier attempt had created the target and this run found it.'),
    })
    .describe(`${sourceType} was transferred fully; carries the new document's id and number.`);
}
export type TransferredDetail = z.infer<ReturnType<typeof transferredSchema>>;

/** The target and action of a source's transfer in the default (Slovak) chain, for descriptions and examples. */
function transferOf(sourceType: TransferSourceType): [string, string] {
  const step = transferSteps.find((s) => s.sourceRecordType === sourceType);
  if (!step) throw new Error(`no transfer step from ${sourceType}`);
  return [step.targetRecordType, step.action];
}

export const transferEvents: readonly CatalogEntry<TransferredType>[] = transferSourceTypes.map(
  (sourceType): CatalogEntry<TransferredType> => ({
    detailType: transferredType(sourceType),
    description: `${withArticle(sourceType, true)} was transferred fully to ${withArticle(transferOf(sourceType)[0])}.`,
    schema: transferredSchema(sourceType),
    example: {
      ...exampleActionBase(
        sourceType,
        exampleIds.order,
        'Transferred',
        transferOf(sourceType)[1],
        'RO2026000042',
      ),
      target: {
        recordType: transferOf(sourceType)[0],
        id: exampleIds.slip,
        documentNumber: 'IS2026000017',
      },
      warnings: [],
      recovered: false,
    },
  }),
);

/** The catalog entry of a source type's `Transferred`. */
export function transferredEntry(sourceType: TransferSourceType): CatalogEntry<TransferredType> {
  const entry = transferEvents.find((e) => e.detailType === transferredType(sourceType));
  if (!entry) throw new Error(`no Transferred entry for ${sourceType}`);
  return entry;
}
