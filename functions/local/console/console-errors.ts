/**
 * A refused console request in the page's words: each problem named by the label the person sees
 * (`detail-type`, `document number`, `invoice kind`), not by a CLI flag or a JSON path.
 */
import type * as z from 'zod';

/** Parameter and body paths → the labels of the page's filters and forms. */
const PAGE_WORDS: Record<string, string> = {
  type: 'detail-type',
  connection: 'connection',
  doc: 'document number',
  since: 'since',
  until: 'until',
  limit: 'limit',
  kind: 'kind',
  month: 'month',
  id: 'bank transaction',
  target: 'invoice',
  'target.recordType': 'invoice kind',
  'target.id': 'invoice Id',
};

/** One line per problem: `detail-type: "Foo" matches no detail-type of the event catalog`. */
export function formatConsoleError(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.map(String).join('.');
      if (!path) return issue.message;
      return `${PAGE_WORDS[path] ?? path}: ${issue.message}`;
    })
    .join('\n');
}
