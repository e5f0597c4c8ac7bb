import type { Assembly } from '../assembly.js';

export interface Defect {
  readonly id: string;
  readonly category: string;
  readonly description: string;
  /** The test file that must fail. */
  readonly file: string;
  /** What the failure message must name: the resource (logical id prefix) and the property. */
  readonly names: readonly [resource: string, property: string];
  /** Changes the assembly; returns how many resources it changed. */
  apply(a: Assembly): number;
}

export const DEFECTS: readonly Defect[] = [];
