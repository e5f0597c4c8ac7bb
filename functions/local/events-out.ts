/**
 * `--events-out FILE`: a subscriber of the local bus that appends every journaled event to a file as
 * one JSON line (EventBridge field names, so `replay` reads it back), in journal order. Each append
 * is awaited and fsync'd before the subscriber's offset moves past its events, so after a crash the
 * file holds every journaled event; an event can appear twice (the same `idempotencyKey`).
 */
import { mkdir, open, readFile, truncate } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { BusSubscriber, EventBridgeEvent } from '../adapters/local/local-bus.js';

/** The subscriber id of the events file (its offset in the bus journal). */
export const EVENTS_OUT_SUBSCRIBER = 'events-out';

export interface EventsOut extends BusSubscriber {
  close(): Promise<void>;
}

/** The JSON line of one event. */
export function eventLine(event: EventBridgeEvent): string {
  return `${JSON.stringify({
    source: event.source,
    'detail-type': event['detail-type'],
    time: event.time,
    ...(event.resources.length ? { resources: event.resources } : {}),
    detail: event.detail,
  })}\n`;
}

/** Cuts a torn last line (a crash mid-append; its events are delivered again) off the file. */
async function cutTornLine(path: string): Promise<void> {
  let text: Buffer;
  try {
    text = await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const end = text.lastIndexOf(0x0a) + 1;
  if (end < text.length) await truncate(path, end);
}

export async function openEventsOut(path: string): Promise<EventsOut> {
  await mkdir(dirname(path), { recursive: true });
  await cutTornLine(path);
  const handle = await open(path, 'a');
  let closed = false;
  return {
    id: EVENTS_OUT_SUBSCRIBER,
    maxConcurrency: 1,
    maxReceiveCount: 5,
    maxBatch: 500,
    async deliver(events) {
      if (closed) throw new Error(`events file ${path} is closed`);
      await handle.appendFile(events.map(eventLine).join(''));
      await handle.sync();
    },
    async close() {
      if (closed) return;
      closed = true;
      await handle.close();
    },
  };
}
