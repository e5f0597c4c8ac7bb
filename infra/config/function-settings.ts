/** The functions' own settings a deployment may pass through: `ACTIONS_*` and `INTAKE_*` names. */
import { actionSettingNames } from '#functions/core/actions/actions-config.js';
import { ENV } from '#functions/shared/env-names.js';
import { INTAKE_ENV } from '#functions/shared/intake-env-names.js';

/** Action settings the deployment sets itself: resource names and the route's DLQ (the connection is `connection`). */
const INFRA_OWNED_ACTION_SETTINGS: ReadonlySet<string> = new Set([
  ENV.actionsIdempotencyTable,
  ENV.actionsArchiveBucket,
  ENV.actionsStateTable,
  ENV.actionsDeadLetterQueueUrl,
]);

/** `ACTIONS_*` settings a deployment may pass through to the action functions (each action's own, from the registry, and the shared ones). */
export const ACTION_SETTING_NAMES: ReadonlySet<string> = new Set(
  actionSettingNames.filter((name) => !INFRA_OWNED_ACTION_SETTINGS.has(name)),
);

/** `INTAKE_*` mapping settings a deployment may pass to the intake functions (not secrets, not resource names). */
export const INTAKE_SETTING_NAMES: ReadonlySet<string> = new Set(
  Object.values(INTAKE_ENV).filter(
    (name) =>
      ![
        INTAKE_ENV.shopifySecret,
        INTAKE_ENV.woocommerceSecret,
        INTAKE_ENV.genericSecret,
        INTAKE_ENV.shoptetSignatureKey,
        INTAKE_ENV.shoptetToken,
        INTAKE_ENV.shoptetTokenSecret,
        INTAKE_ENV.secretsSecret,
        INTAKE_ENV.queueUrl,
      ].includes(name as never),
  ),
);
