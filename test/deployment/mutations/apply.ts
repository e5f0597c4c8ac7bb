/**
 * The template defect a mutation run asks for (`DEPLOYMENT_MUTATION=<id>`), applied to the
 * synthesized assembly before the deployment reads it. Without the variable nothing changes.
 */
import type { Assembly } from '../assembly.js';
import { DEFECTS } from './defects.js';

export const MUTATION_ENV = 'DEPLOYMENT_MUTATION';

export function mutate(assembly: Assembly): void {
  const id = process.env[MUTATION_ENV];
  if (!id) return;
  const defect = DEFECTS.find((d) => d.id === id);
  if (!defect) throw new Error(`${MUTATION_ENV}=${id}: no such defect`);
  const changed = defect.apply(assembly);
  if (changed === 0) throw new Error(`defect ${id} changed nothing in this template`);
  console.info(`mutation ${id} applied to ${changed} resource(s): ${defect.description}`);
}
