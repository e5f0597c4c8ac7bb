/**
 * SQS queues as the template configures them: visibility timeout, redrive to a DLQ after
 * `maxReceiveCount` receives, FIFO message groups (a group with a message in flight yields no
 * other) and deduplication ids. Time is virtual, so a visibility timeout of minutes passes at once
 * when the test has nothing else to do.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Assembly } from './assembly.js';

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
  firstReceivedAt?: number;
  receiptHandle?: string;
}

export interface Queue {
  readonly arn: string;
  readonly url: string;
  readonly name: string;
  readonly fifo: boolean;
  readonly visibilityTimeoutSeconds: number;
  readonly redrive?: { deadLetterTargetArn: string; maxReceiveCount: number };
  readonly messages: QueueMessage[];
}

export class VirtualClock {
  private offset = 0;
  now(): number {
    return Date.now() + this.offset;
  }
  advanceTo(ms: number): void {
    this.offset += Math.max(0, ms - this.now());
  }
}

export class QueueNotFoundError extends Error {
  override readonly name = 'QueueNotFoundError';
}

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

export class Queues {
  readonly clock = new VirtualClock();
  private readonly queues = new Map<string, Queue>();
  private readonly dedup = new Map<string, number>();
  private sequence = 0n;

  constructor(assembly: Assembly) {
    for (const r of assembly.byType('AWS::SQS::Queue')) {
      const p = assembly.props(r);
      this.queues.set(r.attributes.Arn as string, {
        arn: r.attributes.Arn as string,
        url: r.ref,
        name: r.attributes.QueueName as string,
        fifo: p.FifoQueue === true || p.FifoQueue === 'true',
        visibilityTimeoutSeconds: Number(p.VisibilityTimeout ?? 30),
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
    options: { groupId?: string; deduplicationId?: string } = {},
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
      visibleAt: this.clock.now(),
    };
    queue.messages.push(message);
    return message;
  }

  /** Up to `max` visible messages; each one's receive count goes up, or it moves to the DLQ. */
  receive(queue: Queue, max: number): QueueMessage[] {
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
        dlq.messages.push({ ...message, receiveCount: 0, visibleAt: now });
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

  /** The earliest time a message now in flight becomes visible again, if any. */
  nextVisibleAt(): number | undefined {
    const now = this.clock.now();
    const times = this.all()
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
