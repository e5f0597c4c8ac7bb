/** `archive ls` and `archive get` read the data directory's archive through the S3 API, also while it is in use. */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '#functions/local/exit-codes.js';
import { type LocalStores, startLocalStores } from '#functions/local/local-stores.js';
import { cli } from './cli-harness.js';

const KEY = 'isdoc/sandbox/IssuedInvoice/2025/11/FA2025000001_1.isdoc';
const XML =
  '<?xml version="1.0" encoding="UTF-8"?>\n<Invoice xmlns="http://isdoc.cz/namespace/2013">ž</Invoice>\n';

describe('cli: archive ls and get', () => {
  let dir: string;
  let stores: LocalStores;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'accounting-events-archive-'));
    // The runtime's own stores hold the data directory meanwhile, as `run` would.
    stores = await startLocalStores(join(dir, 'data'));
    await stores.archive.put({ key: KEY, body: Buffer.from(XML), contentType: 'application/xml' });
    await stores.archive.put({
      key: 'claims/x.bin',
      body: Buffer.from([0xff, 0xfe, 0x00]),
      contentType: 'application/octet-stream',
    });
  });
  afterAll(async () => {
    await stores?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('ls lists the keys while the stores are open', async () => {
    const run = await cli(['archive', 'ls', '--prefix', 'isdoc/', '--data-dir', join(dir, 'data')]);
    expect(run.code).toBe(EXIT.ok);
    expect(run.stdout).toContain('1 objects in s3://accounting-events-archive/isdoc/');
    // 80 columns: the key cut in its middle, its ends kept; --wide prints it whole.
    expect(Math.max(...run.stdout.split('\n').map((l) => l.length))).toBeLessThanOrEqual(80);
    expect(run.stdout).toContain(KEY.slice(0, 20));
    const wide = await cli([
      'archive',
      'ls',
      '--wide',
      '--prefix',
      'isdoc/',
      '--data-dir',
      join(dir, 'data'),
    ]);
    expect(wide.stdout).toContain(KEY);
  });

  it('get takes a key as ls shows it at 80 columns, cut in the middle', async () => {
    const listed = await cli(['archive', 'ls', '--prefix', 'isdoc/', '--data-dir', join(dir, 'data')]);
    const shown = listed.stdout
      .split('\n')
      .map((l) => l.split(/\s+/)[0] ?? '')
      .find((k) => k.startsWith('isdoc/'));
    expect(shown).toContain('…');
    const printed = await cli(['archive', 'get', shown as string, '--data-dir', join(dir, 'data')]);
    expect(printed.code).toBe(EXIT.ok);
    expect(printed.stdout).toBe(XML);
  });

  it('a cut key that stands for two objects is refused, pointing at --wide', async () => {
    for (const month of ['11', '12'])
      await stores.archive.put({
        key: `twins/2025/${month}/FA2025000001_1.isdoc`,
        body: Buffer.from(XML),
        contentType: 'application/xml',
      });
    const run = await cli([
      'archive',
      'get',
      'twins/…/FA2025000001_1.isdoc',
      '--data-dir',
      join(dir, 'data'),
    ]);
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toBe(
      `error: "twins/…/FA2025000001_1.isdoc" stands for 2 objects; copy the whole key from 'archive ls --wide'\n`,
    );
    expect(run.stdout).toBe('');
  });

  it('get KEY prints the ISDOC, --out writes it to a file byte for byte', async () => {
    const printed = await cli(['archive', 'get', KEY, '--data-dir', join(dir, 'data')]);
    expect(printed.code).toBe(EXIT.ok);
    expect(printed.stdout).toBe(XML);
    const out = join(dir, 'out.isdoc');
    const written = await cli(['archive', 'get', KEY, '--out', out, '--data-dir', join(dir, 'data')]);
    expect(written.code).toBe(EXIT.ok);
    expect(await readFile(out, 'utf8')).toBe(XML);
  });

  it('get of a missing key exits 1 naming it; a binary object needs --out', async () => {
    const missing = await cli(['archive', 'get', 'isdoc/nope', '--data-dir', join(dir, 'data')]);
    expect(missing.code).toBe(EXIT.failure);
    expect(missing.stderr).toContain('no object "isdoc/nope"');
    const binary = await cli(['archive', 'get', 'claims/x.bin', '--data-dir', join(dir, 'data')]);
    expect(binary.code).toBe(EXIT.failure);
    expect(binary.stderr).toContain('--out FILE');
    expect(binary.stdout).toBe('');
  });

  it('--out only with get', async () => {
    const run = await cli(['archive', 'ls', '--out', 'x', '--data-dir', join(dir, 'data')]);
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toContain('--out: only with get');
  });
});
