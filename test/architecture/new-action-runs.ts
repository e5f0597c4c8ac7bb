/**
 * The two runs of a new action that new-action.test.ts makes in its copy of the project (through
 * its probe, so the copy's own sources are what runs): one shop order through the intake of the
 * synthesized deployment (the bundles of `cdk.out` with their roles, ../deployment/deployment.ts),
 * and one through the intake of the local runtime. Each reports the events published after it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sampleOrder } from '#functions/local/intake-samples.js';
import { postSignedOrder } from '#functions/local/intake-send.js';
import { startRuntime } from '#functions/local/runtime.js';
import { startSandbox } from '#sandbox/index.js';
import { deploy } from '../deployment/deployment.js';
import { failedInvocations, postGenericOrder, webhookSecret } from '../deployment/flows.js';
import { findingsAfterTest } from '../deployment/proof-of-use.js';

/** What a run published, in order, and what went wrong on the way (empty when nothing did). */
export interface RunReport {
  readonly status: number;
  readonly published: readonly { readonly detailType: string; readonly caller?: string }[];
  readonly problems: string;
}

const SANDBOX_SIZES = { documents: 0, partners: 3, perCollection: {} };

/**
 * One generic order through the deployment's HTTP API, with the settings' defaults (the intake is
 * on, and so is the new action); the queues settled, no schedule run.
 */
export async function runDeployed(): Promise<RunReport> {
  const d = await deploy({ sandbox: { sizes: SANDBOX_SIZES }, config: {} });
  try {
    const secret = (prefix: string) => {
      const s = d.assembly.byType('AWS::SecretsManager::Secret').find((r) => r.logicalId.startsWith(prefix));
      if (!s) throw new Error(`no secret ${prefix}`);
      return s.ref;
    };
    const intakeSecret = webhookSecret();
    d.standIn.secretStore.put(
      secret('CredentialsSecret'),
      JSON.stringify({ apiKey: d.sandbox.credentials.apiKey }),
    );
    d.standIn.secretStore.put(secret('OrderIntakeSecrets'), JSON.stringify({ generic: intakeSecret }));
    const response = await postGenericOrder(d, intakeSecret, 3);
    await d.settle();
    // Settled, every queue is empty: a message left (in a dead-letter queue too) is a run that failed.
    const left = d.queues
      .all()
      .filter((q) => q.messages.length > 0)
      .map((q) => `${q.name}: ${q.messages.length}`);
    const problems = [
      failedInvocations(d),
      findingsAfterTest(d),
      left.length > 0 ? `messages left in queues: ${left.join(', ')}` : '',
      response.status === 202 ? '' : `${response.via}: ${JSON.stringify(response.error ?? response.body)}`,
    ];
    return {
      status: response.status,
      published: d.standIn.published.map((p) => ({ detailType: p.event['detail-type'], caller: p.caller })),
      problems: problems.filter(Boolean).join('\n'),
    };
  } finally {
    await d.close();
  }
}

const SECRETS = {
  INTAKE_GENERIC_SECRET: webhookSecret(),
};
// A bound on the wait, there only to end a broken run.
const BOUND_MS = 60_000;

/** One generic order through the local runtime's intake, until `until` is published on its bus. */
export async function runLocal(until: string): Promise<RunReport> {
  const dataDir = await mkdtemp(join(tmpdir(), 'new-action-local-'));
  const sandbox = await startSandbox({ sizes: SANDBOX_SIZES });
  const runtime = await startRuntime({
    sandbox: { instance: sandbox },
    env: { ...SECRETS },
    dataDir: join(dataDir, 'data'),
    intervalMs: 1000,
    actions: true,
    backfillProgress: false,
    intake: { port: 0 },
  }).catch(async (error: unknown) => {
    await sandbox.close();
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  });
  const stopper = new AbortController();
  const running = runtime.run({ signal: stopper.signal });
  const published: { detailType: string }[] = [];
  let bound: NodeJS.Timeout | undefined;
  const seen = new Promise<void>((resolve, reject) => {
    bound = setTimeout(() => reject(new Error(`no ${until} within ${BOUND_MS} ms`)), BOUND_MS);
    runtime.bus.onEvent((e) => {
      published.push({ detailType: e['detail-type'] });
      if (e['detail-type'] === until) resolve();
    });
  });
  seen.catch(() => undefined);
  try {
    const intake = runtime.intake;
    if (!intake) throw new Error('the local runtime started no intake');
    const sent = await postSignedOrder({
      baseUrl: intake.url,
      source: 'generic',
      secret: SECRETS.INTAKE_GENERIC_SECRET,
      body: JSON.stringify(sampleOrder('generic', 3)),
    });
    if (sent.status !== 202) throw new Error(`the intake answered ${sent.status}: ${sent.body}`);
    await seen;
    return { status: sent.status, published, problems: '' };
  } catch (error) {
    return { status: 0, published, problems: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(bound);
    stopper.abort();
    await running;
    await runtime.stop();
    await sandbox.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
