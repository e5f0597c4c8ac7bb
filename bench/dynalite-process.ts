/**
 * dynalite in a child process of its own, on 127.0.0.1 and an ephemeral port: the DynamoDB twin
 * of the connections benchmark gets a core of its own instead of sharing the event loop with the
 * pollers and the sandbox (one dynalite answers roughly twice as many requests a second that way).
 */
import { spawn } from 'node:child_process';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createDynaliteClient } from '../functions/adapters/local/embedded-servers.js';

const SCRIPT = `
const server = require('dynalite')({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
process.stdin.on('end', () => process.exit(0)).resume();
`;

export interface DynaliteProcess {
  endpoint: string;
  client: DynamoDBClient;
  close(): Promise<void>;
}

export async function startDynaliteProcess(): Promise<DynaliteProcess> {
  // stdin stays open while this process lives: the child ends with it, even after a crash here.
  const child = spawn(process.execPath, ['-e', SCRIPT], { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`dynalite exited with ${code}`)));
    child.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const client = createDynaliteClient(endpoint);
  return {
    endpoint,
    client,
    async close() {
      client.destroy();
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin.end();
      await exited;
    },
  };
}
