/**
 * Maps zod issues to the service's problem bodies: wrong JSON types → 400 (model binding),
 * rule violations → 422 with FluentValidation-style messages keyed by property path.
 */
import type * as z from 'zod';
import { ProblemError } from './http.js';

export function propertyPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out === '' ? String(p) : `.${String(p)}`;
  }
  return out;
}

function lastName(path: readonly PropertyKey[]): string {
  for (let i = path.length - 1; i >= 0; i--) {
    const p = path[i];
    if (typeof p === 'string') return p;
  }
  return 'Value';
}

export function problemFromZod(error: z.ZodError): ProblemError {
  const typeErrors: Record<string, string[]> = {};
  const ruleErrors: Record<string, string[]> = {};
  for (const issue of error.issues) {
    const key = propertyPath(issue.path);
    const name = lastName(issue.path);
    const hasInput = 'input' in issue && issue.input !== undefined && issue.input !== null;
    if (issue.code === 'invalid_type' && hasInput) {
      const k = key === '' ? '$' : `$.${key}`;
      typeErrors[k] = [
        ...(typeErrors[k] ?? []),
        `The JSON value could not be converted to ${issue.expected}. Path: ${k}`,
      ];
      continue;
    }
    let message: string;
    if (issue.code === 'invalid_type' || (issue.code === 'too_small' && issue.origin !== 'number')) {
      message = `'${name}' must not be empty.`;
    } else if (issue.code === 'too_small') {
      message = issue.inclusive
        ? `'${name}' must be greater than or equal to '${issue.minimum}'.`
        : `'${name}' must be greater than '${issue.minimum}'.`;
    } else if (issue.code === 'too_big') {
      message = issue.inclusive
        ? `'${name}' must be less than or equal to '${issue.maximum}'.`
        : `'${name}' must be less than '${issue.maximum}'.`;
    } else if (issue.code === 'invalid_value') {
      message = `'${name}' has a range of values which does not include '${String(
        'input' in issue ? issue.input : '',
      )}'.`;
    } else if (issue.code === 'custom') {
      message = issue.message;
    } else {
      message = `'${name}' is not in the correct format.`;
    }
    const field = key === '' ? name : key;
    ruleErrors[field] = [...(ruleErrors[field] ?? []), message];
  }
  if (Object.keys(typeErrors).length > 0) return new ProblemError(400, typeErrors);
  return new ProblemError(422, ruleErrors);
}

/** Parses `input` or throws the matching problem. */
export function validate<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input, { reportInput: true });
  if (!result.success) throw problemFromZod(result.error);
  return result.data;
}
