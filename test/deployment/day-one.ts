/**
 * The day-one checklist of docs/deploy.md, read as a user would run it: the stack outputs its
 * commands read (`out <stack> <output>`), the secrets it puts, how it lists the dead-letter queues
 * and the tags it asks Cost Explorer for. The deployment tests run these against the templates.
 */
import { readFileSync } from 'node:fs';
import type { Assembly, Json } from './assembly.js';

const HEADING = '### Day one on AWS, a checklist';

/** The checklist's text: from its heading to the next section. */
export function checklistText(): string {
  const doc = readFileSync(new URL('../../docs/deploy.md', import.meta.url), 'utf8');
  const start = doc.indexOf(HEADING);
  if (start < 0) throw new Error(`docs/deploy.md has no '${HEADING}'`);
  const end = doc.indexOf('\n## ', start);
  return doc.slice(start, end < 0 ? undefined : end);
}

export type StackPart = 'stateful' | 'stateless';

export interface NamedOutput {
  readonly stack: StackPart;
  readonly key: string;
}

const unique = <T>(items: T[], key: (t: T) => string): T[] => [
  ...new Map(items.map((t) => [key(t), t])).values(),
];

/** Every `out <stack> <output>` of the checklist's commands. */
export function namedOutputs(text = checklistText()): NamedOutput[] {
  const found = [...text.matchAll(/\bout (stateful|stateless) (\w+)/g)].map((m) => ({
    stack: m[1] as StackPart,
    key: m[2] as string,
  }));
  return unique(found, (o) => `${o.stack}/${o.key}`);
}

/** The outputs whose value the checklist puts a secret into (`put-secret-value --secret-id "$(out …)"`). */
export function secretOutputs(text = checklistText()): NamedOutput[] {
  return [...text.matchAll(/put-secret-value --secret-id "\$\(out (stateful|stateless) (\w+)\)"/g)].map(
    (m) => ({ stack: m[1] as StackPart, key: m[2] as string }),
  );
}

/** What the dead-letter listing keeps: queues whose logical id contains this. */
export function deadLetterFilter(text = checklistText()): string {
  const m = /contains\(LogicalResourceId, '(\w+)'\)/.exec(text);
  if (!m) throw new Error('the checklist lists no dead-letter queues');
  return m[1] as string;
}

/** The tag keys the checklist activates for cost allocation, and the one its Cost Explorer query filters on. */
export function costTags(text = checklistText()): { activated: string[]; filter: string } {
  const activated = [...text.matchAll(/TagKey=(\w+),Status=Active/g)].map((m) => m[1] as string);
  const filter = /\\"Key\\":\\"(\w+)\\"/.exec(text)?.[1];
  if (!filter) throw new Error('the checklist reads no cost by tag');
  return { activated, filter };
}

/** The deployed stack's name of a part (`accounting-events-<stage>-<part>`). */
export function stackOf(assembly: Assembly, part: StackPart): string {
  const stack = [...new Set(assembly.resources.map((r) => r.stack))].find((s) => s.endsWith(`-${part}`));
  if (!stack) throw new Error(`no ${part} stack`);
  return stack;
}

/** The value `out <stack> <key>` prints, or undefined when the stack has no such output. */
export function outputValue(assembly: Assembly, o: NamedOutput): string | undefined {
  return assembly.outputs(stackOf(assembly, o.stack))[o.key];
}

/**
 * The template's dead-letter queues, by logical id: the queues a queue redrives to, a rule or a
 * schedule dead-letters to, a function sends its invalid events to, or an invocation's failure goes to.
 */
export function deadLetterQueues(assembly: Assembly): Set<string> {
  const queues = assembly.byType('AWS::SQS::Queue');
  const byArnOrUrl = (value: unknown) =>
    queues.find((q) => q.attributes.Arn === value || q.ref === value)?.logicalId;
  const referenced: unknown[] = [];
  for (const q of queues) referenced.push(assembly.props(q).RedrivePolicy?.deadLetterTargetArn);
  for (const rule of assembly.byType('AWS::Events::Rule'))
    for (const t of assembly.props(rule).Targets ?? []) referenced.push((t as Json).DeadLetterConfig?.Arn);
  for (const s of assembly.byType('AWS::Scheduler::Schedule'))
    referenced.push(assembly.props(s).Target?.DeadLetterConfig?.Arn);
  for (const fn of assembly.byType('AWS::Lambda::Function'))
    referenced.push(assembly.props(fn).Environment?.Variables?.ACTIONS_DEAD_LETTER_QUEUE_URL);
  for (const c of assembly.byType('AWS::Lambda::EventInvokeConfig'))
    referenced.push(assembly.props(c).DestinationConfig?.OnFailure?.Destination);
  return new Set(referenced.map(byArnOrUrl).filter((id): id is string => id !== undefined));
}
