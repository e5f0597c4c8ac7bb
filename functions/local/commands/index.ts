import type { Command } from '../command.js';
import { archiveCommand } from './archive.js';
import { eventsCommand } from './events.js';
import { operationsCommand } from './operations.js';

/** Every subcommand, in the order `--help` lists them. */
export const commands = [
  eventsCommand,
  operationsCommand,
  archiveCommand,
] as unknown as readonly Command<unknown>[];
