/**
 * SQS queues as the template configures them: visibility timeout, delivery delay, message
 * retention (a message older than it is gone, and recorded as expired), redrive to a DLQ after
 * `maxReceiveCount` receives (a standard queue's message keeps its enqueue time there, a FIFO
 * queue's starts anew, as SQS does), FIFO message groups (a group with a message in flight yields
 * no other) and deduplication ids. Time is the deployment's virtual clock, so a visibility timeout
 * of minutes passes at once when the test has nothing else to do.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Assembly } from './assembly.js';
import type { VirtualClock } from './virtual-clock.js';

export interface QueueMessage {
  readonly messageId: string;
  readonly body: string;
  readonly md5OfBody: string;
  readonly sentAt: number;
  readonly groupId?: string;
  readonly deduplicationId?: string;
  readonly sequenceNumber?: string;
  receiveCount: number;
  visibleAt: number;
  /** When retention counts from (the enqueue time; a FIFO DLQ's move time). */
  enqueuedAt: number;
  firstReceivedAt?: number;
  receiptHandle?: string;
}

export interface Queue {
  readonly arn: string;
  readonly url: string;
  readonly name: string;
  readonly fifo: boolean;
  readonly visibilityTimeoutSeconds: number;
  readonly retentionSeconds: number;
  readonly delaySeconds: number;
  readonly logicalId: string;
  readonly redrive?: { deadLetterTargetArn: string; maxReceiveCount: number };
  readonly messages: QueueMessage[];
}

/** A message SQS deleted because it outlived its queue's retention period. */
export interface ExpiredMessage {
  readonly queue: string;
  readonly logicalId: string;
  readonly retentionSeconds: number;
  readonly body: string;
}

export class QueueNotFoundError extends Error {
  override readonly name = 'QueueNotFoundError';
}

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

export class Queues {
  readonly expired: ExpiredMessage[] = [];
  private readonly queues = new Map<string, Queue>();
  private readonly dedup = new Map<string, number>();
  private sequence = 0n;

  constructor(
    assembly: Assembly,
    readonly clock: VirtualClock,
  ) {
    for (const r of assembly.byType('AWS::SQS::Queue')) {
      const p = assembly.props(r);
      this.queues.set(r.attributes.Arn as string, {
        arn: r.attributes.Arn as string,
        url: r.ref,
        name: r.attributes.QueueName as string,
        logicalId: r.logicalId,
        fifo: p.FifoQueue === true || p.FifoQueue === 'true',
        visibilityTimeoutSeconds: Number(p.VisibilityTimeout ?? 30),
        retentionSeconds: Number(p.MessageRetentionPeriod ?? 345_600),
        delaySeconds: Number(p.DelaySeconds ?? 0),
        ...(p.RedrivePolicy
          ? {
              redrive: {
                deadLetterTargetArn: p.RedrivePolicy.deadLetterTargetArn,
                maxReceiveCount: Number(p.RedrivePolicy.maxReceiveCount),
              },
            }
          : {}),
        messages: [],
      });
    }
  }

  get(arnOrUrl: string): Queue {
    const queue =
      this.queues.get(arnOrUrl) ??
      [...this.queues.values()].find((q) => q.url === arnOrUrl || q.name === arnOrUrl);
    if (!queue) throw new QueueNotFoundError(`no queue ${arnOrUrl}`);
    return queue;
  }

  all(): Queue[] {
    return [...this.queues.values()];
  }

  send(
    queue: Queue,
    body: string,
    options: { groupId?: string; deduplicationId?: string; delaySeconds?: number } = {},
  ): QueueMessage {
    if (queue.fifo && !options.groupId) throw new Error(`${queue.name}: a FIFO queue needs MessageGroupId`);
    if (queue.fifo) {
      const dedupId = options.deduplicationId;
      if (!dedupId)
        throw new Error(`${queue.name}: MessageDeduplicationId is required (no content-based dedup)`);
      const key = `${queue.arn}|${dedupId}`;
      const seen = this.dedup.get(key);
      if (seen !== undefined && this.clock.now() - seen < 5 * 60_000) {
        const existing = queue.messages.find((m) => m.deduplicationId === dedupId);
        if (existing) return existing;
      }
      this.dedup.set(key, this.clock.now());
    }
    this.sequence += 1n;
    const message: QueueMessage = {
      messageId: randomUUID(),
      body,
      md5OfBody: md5(body),
      sentAt: this.clock.now(),
      ...(options.groupId ? { groupId: options.groupId } : {}),
      ...(options.deduplicationId ? { deduplicationId: options.deduplicationId } : {}),
      ...(queue.fifo ? { sequenceNumber: this.sequence.toString().padStart(20, '0') } : {}),
      receiveCount: 0,
      // A FIFO queue has only the queue's delay; a standard queue's message may set its own.
      visibleAt:
        this.clock.now() +
        1000 * (queue.fifo ? queue.delaySeconds : (options.delaySeconds ?? queue.delaySeconds)),
      enqueuedAt: this.clock.now(),
    };
    queue.messages.push(message);
    return message;
  }

  /** Up to `max` visible messages; each one's receive count goes up, or it moves to the DLQ. */
  receive(queue: Queue, max: number): QueueMessage[] {
    this.expire();
    const now = this.clock.now();
    const out: QueueMessage[] = [];
    const busyGroups = new Set(
      queue.messages.filter((m) => m.visibleAt > now && m.groupId !== undefined).map((m) => m.groupId),
    );
    for (const message of [...queue.messages]) {
      if (out.length >= max) break;
      if (message.visibleAt > now) continue;
      if (queue.fifo && busyGroups.has(message.groupId)) continue;
      if (queue.redrive && message.receiveCount >= queue.redrive.maxReceiveCount) {
        this.remove(queue, message);
        const dlq = this.get(queue.redrive.deadLetterTargetArn);
        dlq.messages.push({
          ...message,
          receiveCount: 0,
          visibleAt: now,
          enqueuedAt: dlq.fifo ? now : message.enqueuedAt,
        });
        continue;
      }
      message.receiveCount += 1;
      message.firstReceivedAt ??= now;
      message.visibleAt = now + queue.visibilityTimeoutSeconds * 1000;
      message.receiptHandle = randomUUID();
      if (message.groupId !== undefined) busyGroups.add(message.groupId);
      out.push(message);
    }
    return out;
  }

  delete(queue: Queue, receiptHandle: string): void {
    const message = queue.messages.find((m) => m.receiptHandle === receiptHandle);
    if (message) this.remove(queue, message);
  }

  changeVisibility(queue: Queue, receiptHandle: string, seconds: number): void {
    const message = queue.messages.find((m) => m.receiptHandle === receiptHandle);
    if (message) message.visibleAt = this.clock.now() + seconds * 1000;
  }

  /** Deletes (and records) every message older than its queue's retention period. */
  expire(): void {
    const now = this.clock.now();
    for (const queue of this.queues.values()) {
      for (const m of [...queue.messages]) {
        if (now < m.enqueuedAt + queue.retentionSeconds * 1000) continue;
        this.remove(queue, m);
        this.expired.push({
          queue: queue.name,
          logicalId: queue.logicalId,
          retentionSeconds: queue.retentionSeconds,
          body: m.body.slice(0, 200),
        });
      }
    }
  }

  /** The messages of a queue visible now. */
  visible(queue: Queue): QueueMessage[] {
    const now = this.clock.now();
    return queue.messages.filter((m) => m.visibleAt <= now);
  }

  /** The earliest time a message now in flight (or delayed) becomes visible, if any (of `among`, or all). */
  nextVisibleAt(among: readonly Queue[] = this.all()): number | undefined {
    const now = this.clock.now();
    const times = among
      .flatMap((q) => q.messages)
      .map((m) => m.visibleAt)
      .filter((t) => t > now);
    return times.length > 0 ? Math.min(...times) : undefined;
  }

  private remove(queue: Queue, message: QueueMessage): void {
    const i = queue.messages.indexOf(message);
    if (i >= 0) queue.messages.splice(i, 1);
  }
}
