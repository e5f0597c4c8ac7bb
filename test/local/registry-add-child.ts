/** A separate process adding connections to a registry file, one change at a time: `registry-add-child.ts FILE PREFIX COUNT`. */
import { createFileConnectionRegistry } from '#functions/adapters/local/file-connection-registry.js';
import { parseConnectionEntry } from '#functions/core/connections/connection-entry.js';

const [path, prefix, count] = process.argv.slice(2) as [string, string, string];
const registry = createFileConnectionRegistry({ path, lockTimeoutMs: 30_000 });
for (let i = 1; i <= Number(count); i += 1) {
  await registry.add(
    parseConnectionEntry({
      name: `${prefix}-${i}`,
      variant: 'cz',
      credentialsSecret: `env:${`${prefix}-${i}`.toUpperCase().replaceAll('-', '_')}_CREDENTIALS`,
    }),
  );
}
