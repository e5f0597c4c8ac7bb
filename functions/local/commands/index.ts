import type { Command } from '../command.js';
import { operationsCommand } from './operations.js';

/** Every subcommand, in the order `--help` lists them. */
export const commands: readonly Command<never>[] = [
  operationsCommand,
] as unknown as readonly Command<never>[];
