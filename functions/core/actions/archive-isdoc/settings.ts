/** The ISDOC archive's settings (`config.isdoc`). */
import { defineActionSettings, flag, positiveInt, type SectionOf } from '../action-settings.js';

export const isdocSettings = defineActionSettings(
  'isdoc',
  {
    ACTIONS_ISDOC_ARCHIVE: { schema: flag(true), default: 'true', description: 'ISDOC archive on/off' },
    ACTIONS_ISDOC_PDF: { schema: flag(false), default: 'false', description: 'archive the PDF beside it' },
    ACTIONS_ISDOC_SCHEMA_STRICT: {
      schema: flag(false),
      default: 'false',
      description:
        'refuse (`Action.Failed`, kept under `rejected/`) an ISDOC the ISDOC 6.0.2 schema rejects, instead of archiving it marked `invalid`',
    },
    ACTIONS_ISDOC_MAX_BYTES: {
      schema: positiveInt(10 * 1024 * 1024),
      default: '10485760',
      description: 'cap of one ISDOC download',
    },
    ACTIONS_ISDOC_NOT_READY_ATTEMPTS: {
      schema: positiveInt(3),
      default: '3',
      description: 'tries per invocation while the ISDOC answers 204',
    },
    ACTIONS_ISDOC_NOT_READY_DELAY_MS: {
      schema: positiveInt(2000),
      default: '2000',
      description: 'wait between those tries',
    },
    ACTIONS_ISDOC_NOT_READY_DEADLINE_SECONDS: {
      schema: positiveInt(3600),
      default: '3600',
      description: 'give up (`Action.Failed`) this long after the event',
    },
  },
  (e) => ({
    enabled: e.ACTIONS_ISDOC_ARCHIVE,
    pdf: e.ACTIONS_ISDOC_PDF,
    /**
     * Refuse a document the ISDOC 6.0.2 schema rejects (`Action.Failed`, kept under `rejected/`)
     * instead of archiving it with the verdict `invalid`.
     */
    schemaStrict: e.ACTIONS_ISDOC_SCHEMA_STRICT,
    maxBytes: e.ACTIONS_ISDOC_MAX_BYTES,
    notReadyAttempts: e.ACTIONS_ISDOC_NOT_READY_ATTEMPTS,
    notReadyDelayMs: e.ACTIONS_ISDOC_NOT_READY_DELAY_MS,
    notReadyDeadlineSeconds: e.ACTIONS_ISDOC_NOT_READY_DEADLINE_SECONDS,
  }),
);

declare module '../config.js' {
  interface ActionSections {
    isdoc: SectionOf<typeof isdocSettings>;
  }
}
