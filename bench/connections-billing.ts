/**
 * The billed duration of a poller invocation, in a way that does not move with the load of the
 * machine running the benchmark: the CPU time the invocation used (`process.cpuUsage`, the
 * sandbox and dynalite in processes of their own) plus the time it waits on the network, modelled
 * from what it did. The wait is the invocation's longest chain: its lease, registry scan and
 * release, then its slowest connection — its credentials read, its checkpoints read after a
 * container change, its service requests `concurrency` at a time (each at the injected latency's
 * top, `baseMs + jitterMs`: the slowest of a shard's connections), a new TLS connection's two round
 * trips, its events and checkpoint write — or, when longer, all its requests through the shared
 * sockets that many at a time. Wall time on a quiet machine checks it (`wallMs`).
 */

/** Round trips assumed inside the region and to the service (ms). */
export const NETWORK_MODEL = {
  dynamoDbMs: 6,
  ssmMs: 20,
  putEventsMs: 20,
  /** To the service from Frankfurt (a Central European service): TCP and TLS 1.3 handshakes, one round trip each. */
  serviceRttMs: 15,
} as const;

export interface InvocationWork {
  cpuMs: number;
  /** Per connection: requests to the service, events published. */
  connections: Array<{ requests: number; published: number }>;
  /** The invocation read checkpoints (its container had not polled the shard last). */
  checkpointReads: boolean;
  credentialCalls: number;
  /** New TLS connections opened to the service. */
  tlsHandshakes: number;
  /** Sockets the invocation's clients share (the poller's shared pool): no more requests wait at once. */
  sockets: number;
}

export interface LatencyModel {
  baseMs: number;
  jitterMs: number;
}

/** Billed ms: CPU + the modelled wait, rounded up to the ms as Lambda bills. */
export function billedMs(
  work: InvocationWork,
  latency: LatencyModel | null,
  concurrency: number,
  collections: number,
): { billedMs: number; waitMs: number } {
  const n = NETWORK_MODEL;
  const answer = latency ? latency.baseMs + latency.jitterMs : 0;
  let slowest = 0;
  for (const c of work.connections) {
    const rounds = Math.ceil(c.requests / Math.max(1, concurrency));
    let chain = rounds * answer;
    if (work.tlsHandshakes > 0) chain += 2 * n.serviceRttMs;
    if (work.checkpointReads) chain += Math.ceil((collections + 1) / Math.max(1, concurrency)) * n.dynamoDbMs;
    if (c.published > 0) chain += n.putEventsMs + n.dynamoDbMs;
    slowest = Math.max(slowest, chain);
  }
  // The shared sockets bound the requests in flight: the invocation's requests, that many at a time.
  const total = work.connections.reduce((sum, c) => sum + c.requests, 0);
  const queued = Math.ceil(total / Math.max(1, work.sockets)) * answer;
  const credentials = work.credentialCalls > 0 ? n.ssmMs : 0;
  const waitMs = 3 * n.dynamoDbMs + credentials + Math.max(slowest, queued);
  return { billedMs: Math.ceil(work.cpuMs + waitMs), waitMs };
}

/**
 * Lambda's own lines per invocation in its text format (START, END, REPORT; REPORT with the INIT
 * duration after a cold start), with a request id's 36 characters and figures of typical width.
 */
export function platformLogBytes(cold: boolean): number {
  const id = '00000000-0000-0000-0000-000000000000';
  const lines = [
    `START RequestId: ${id} Version: $LATEST\n`,
    `END RequestId: ${id}\n`,
    `REPORT RequestId: ${id}\tDuration: 1234.56 ms\tBilled Duration: 1235 ms\tMemory Size: 512 MB\tMax Memory Used: 123 MB\t${cold ? 'Init Duration: 456.78 ms\t' : ''}\n`,
  ];
  return lines.reduce((n, l) => n + Buffer.byteLength(l), 0);
}
