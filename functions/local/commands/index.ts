import type { Command } from '../command.js';
import { archiveCommand } from './archive.js';
import { backfillCommand } from './backfill.js';
import { bankCommand } from './bank.js';
import { checkpointsCommand } from './checkpoints.js';
import { connectionsCommand } from './connections.js';
import { deliveriesCommand } from './deliveries.js';
import { dlqCommand } from './dlq.js';
import { einvoiceCommand } from './einvoice.js';
import { eventsCommand } from './events.js';
import { holdsCommand } from './holds.js';
import { intakeCommand } from './intake.js';
import { operationsCommand } from './operations.js';
import { replayCommand } from './replay.js';
import { runCommand } from './run.js';
import { sandboxCommand } from './sandbox.js';
import { syncCommand } from './sync.js';

/** Every subcommand, in the order `--help` lists them. */
export const commands = [
  runCommand,
  sandboxCommand,
  syncCommand,
  backfillCommand,
  replayCommand,
  eventsCommand,
  operationsCommand,
  archiveCommand,
  checkpointsCommand,
  connectionsCommand,
  deliveriesCommand,
  einvoiceCommand,
  intakeCommand,
  bankCommand,
  dlqCommand,
  holdsCommand,
] as unknown as readonly Command<unknown>[];
