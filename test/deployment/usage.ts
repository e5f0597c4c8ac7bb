/**
 * What a deployment's flows used: rules matched and their targets reached, triggers and
 * functions invoked, schedules fired, and what went wrong without failing a call (messages
 * expired, events lost, batch failures ignored). The checks after each test and each file read it.
 */
export interface Usage {
  /** Rule logical id → events matched. */
  readonly ruleMatches: Map<string, number>;
  /** `rule logical id#target index` → deliveries that reached the target. */
  readonly targetDeliveries: Map<string, number>;
  /** Event source mapping logical id → invocations. */
  readonly triggerInvocations: Map<string, number>;
  /** Schedule (or schedule rule) logical id → times it fired. */
  readonly schedulesFired: Map<string, number>;
  /** Findings that no single call shows: each names the resource and the property. */
  readonly findings: string[];
}

export const createUsage = (): Usage => ({
  ruleMatches: new Map(),
  targetDeliveries: new Map(),
  triggerInvocations: new Map(),
  schedulesFired: new Map(),
  findings: [],
});

export const count = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
