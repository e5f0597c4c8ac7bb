import { describe, expect, it } from 'vitest';
import { defineEventAction, type EventActionDefinition } from '#functions/core/actions/action-definition.js';
import { defaultActionsConfig, loadActionsConfig } from '#functions/core/actions/actions-config.js';
import { createActionEntry } from '#functions/core/actions/run-action.js';
import { ACTION_FAILED, actionFailedEntry } from '#functions/core/events/action-events.js';
import { intakeEntry } from '#functions/core/events/intake-events.js';
import { buildRoutes, checkRoutes, RoutingTableError, routesOf } from '#functions/core/routes.js';
import { createLogger } from '#functions/shared/logger.js';

const config = defaultActionsConfig();
const imported = intakeEntry('Imported');

/** A throwaway action triggered by `on`, publishing `publishes` (declared by it when `declares`). */
function action(
  name: string,
  on: string[],
  options: { triggers?: EventActionDefinition['triggers']; outcomes?: string[] } = {},
) {
  return defineEventAction({
    name,
    module: import.meta.url,
    uses: [],
    events: [],
    outcomes: options.outcomes ?? [ACTION_FAILED],
    ...(options.triggers ? { triggers: options.triggers } : {}),
    deps: () => ({}),
    run: () => async () => ({ status: 'done' as const }),
    routes: () => [
      {
        id: name,
        description: name,
        pattern: { source: [config.eventSource], 'detail-type': on },
        maxConcurrency: 2,
        maxReceiveCount: 3,
        timeoutSeconds: 30,
      },
    ],
  }) as EventActionDefinition;
}

const problemsOf = (fn: () => unknown): string[] => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(RoutingTableError);
    return [...(error as RoutingTableError).problems];
  }
  throw new Error('expected the routing table to be refused');
};

describe('any catalog event can trigger an action', () => {
  it('routes an intake event to an action that names it among its triggers, and its entry checks it', async () => {
    const onImported = action('on-imported', ['EshopOrder.Imported'], { triggers: [imported] });
    const [route] = routesOf([onImported], config);
    expect(route?.pattern['detail-type']).toEqual(['EshopOrder.Imported']);

    const seen: string[] = [];
    const entry = createActionEntry(
      'on-imported',
      createLogger({ level: 'silent' }),
      async (event) => {
        seen.push(`${event.detailType} ${event.envelope.connection} ${event.envelope.id}`);
        return { status: 'done' };
      },
      onImported.triggers,
    );
    const detail = imported.example as Record<string, unknown>;
    const raw = {
      id: 'evt-1',
      source: config.eventSource,
      'detail-type': 'EshopOrder.Imported',
      time: '2026-11-28T10:00:00Z',
      detail,
    };
    expect(await entry(raw)).toMatchObject({ status: 'done' });
    expect(seen).toEqual([`EshopOrder.Imported ${detail.connection} ${detail.id}`]);
    // The trigger's own schema decides: a detail that breaks it is invalid, and nothing runs.
    expect(await entry({ ...raw, detail: { ...detail, receivedOrderId: '' } })).toMatchObject({
      status: 'invalid',
    });
    expect(seen).toHaveLength(1);
  });

  it('refuses a detail-type outside the catalog, and one its action cannot check', () => {
    expect(problemsOf(() => routesOf([action('typo', ['ReceivedOrder.Craeted'])], config))).toEqual([
      "typo: 'ReceivedOrder.Craeted' is no detail-type of the event catalog",
    ]);
    expect(problemsOf(() => routesOf([action('unchecked', ['EshopOrder.Imported'])], config))).toEqual([
      "unchecked: 'EshopOrder.Imported' is not among the triggers of unchecked",
    ]);
  });

  it('refuses an action triggered by its own outcome, directly or through others', () => {
    // Directly: every action may publish Action.Failed.
    const self = action('self', ['Action.Failed'], { triggers: [actionFailedEntry] });
    expect(problemsOf(() => routesOf([self], config))).toEqual(['loop: self → self']);
    // Through another: a's outcome triggers b, b's outcome triggers a.
    const a = action('a', ['IssuedInvoice.EmailSent'], { outcomes: ['ReceivedOrder.Transferred'] });
    const b = action('b', ['ReceivedOrder.Transferred'], { outcomes: ['IssuedInvoice.EmailSent'] });
    const table = [...a.routes(config), ...b.routes(config)].map((r, i) => ({
      ...r,
      handler: i === 0 ? 'a' : 'b',
      outcomes: i === 0 ? ['ReceivedOrder.Transferred'] : ['IssuedInvoice.EmailSent'],
    }));
    const problems = problemsOf(() =>
      checkRoutes(table, [
        { ...a, triggers: [] },
        { ...b, triggers: [] },
      ]),
    );
    expect(problems.filter((p) => p.startsWith('loop:'))).toEqual(['loop: a → b → a']);
  });

  it('builds the registry’s own table, every action switched on, without a problem', () => {
    const everything = loadActionsConfig({
      ACTIONS_TRANSFER_ISSUED_OFFER_TO_RECEIVED_ORDER: 'true',
      ACTIONS_TRANSFER_ISSUED_ORDER_TO_RECEIVED_INVOICE: 'true',
      ACTIONS_EINVOICE_PARTNERS: '12345678',
      ACTIONS_EMAIL_PARTNERS: '55555555',
      ACTIONS_PAYMENT_REMINDERS: 'true',
    });
    expect(buildRoutes(everything).length).toBeGreaterThan(buildRoutes(config).length);
    expect(() => routesOf([action('plain', ['IssuedInvoice.Created'])], config)).not.toThrow();
  });
});
