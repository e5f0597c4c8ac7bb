/** Child process of measure-poller.ts: serves a sandbox and prints its address; exits when stdin closes. */
import { startSandbox } from '#sandbox/index.js';

const documents = Number(process.argv[2] ?? 100_000);
const maxPageSize = Number(process.argv[3] ?? 100);
const sandbox = await startSandbox({
  sizes: { documents, partners: 50, perCollection: { ReceivedOrders: documents } },
  maxPageSize,
});
process.stdout.write(`${JSON.stringify({ baseUrl: sandbox.baseUrl, apiKey: sandbox.credentials.apiKey })}\n`);
process.stdin.resume();
process.stdin.on('end', () => {
  void sandbox.close().then(() => process.exit(0));
});
