/** Appends every published event to a file as one JSON line (`--events-out`), in publish order. */
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { BusEvent } from '../core/ports.js';

export interface EventsOut {
  write(events: readonly BusEvent[]): void;
  close(): Promise<void>;
}

/** The JSON line of one event: EventBridge field names, so `replay` reads it back. */
export function eventLine(event: BusEvent): string {
  return `${JSON.stringify({
    source: event.source,
    'detail-type': event.detailType,
    time: (event.time ?? new Date()).toISOString(),
    ...(event.resources?.length ? { resources: event.resources } : {}),
    detail: event.detail,
  })}\n`;
}

export async function openEventsOut(path: string): Promise<EventsOut> {
  await mkdir(dirname(path), { recursive: true });
  const stream: WriteStream = createWriteStream(path, { flags: 'a' });
  await new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', reject);
  });
  return {
    write(events) {
      for (const e of events) stream.write(eventLine(e));
    },
    close: () => new Promise<void>((resolve) => stream.end(() => resolve())),
  };
}
