import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { buildRoutes, buildScheduledActions, type Route } from '#functions/core/routes.js';
import { actionsConfigOf } from '#infra/build-app.js';
import { REQUIRE_SHIM_BANNER } from '#infra/constructs/app-function.js';
import { findHandlerEntry, MissingHandlerError } from '#infra/constructs/handler-entry.js';
import { POLLER_HANDLER } from '#infra/stacks/stateless-stack.js';
import { assetFiles, BUNDLE_LIMIT_BYTES, LIBXML2_WASM_FILE } from '#scripts/bundle-function.mjs';
import { buildTestApp, testInfraConfig } from './support.js';

const outdirs: string[] = [];
afterAll(() => {
  for (const dir of outdirs) rmSync(dir, { recursive: true, force: true });
});

const route = (id: string, handler: string): Route => ({
  id,
  handler,
  description: `test route ${id}`,
  pattern: { 'detail-type': ['IssuedInvoice.Created'] },
  maxConcurrency: 2,
  maxReceiveCount: 3,
  timeoutSeconds: 30,
  outcomes: [],
});

describe('missing handler modules', () => {
  it('without bundling, the app synthesizes for a route whose module does not exist', () => {
    const t = buildTestApp({}, { routes: [route('later', 'not-written-yet')], scheduledActions: [] });
    t.statelessTemplate.resourcePropertiesCountIs(
      'AWS::Events::Rule',
      { EventPattern: { 'detail-type': ['IssuedInvoice.Created'] } },
      1,
    );
    t.statelessTemplate.hasResourceProperties('AWS::Lambda::Function', { Runtime: 'nodejs24.x' });
  });

  it('when bundling, one error names every missing module and who uses it', () => {
    let error: unknown;
    try {
      buildTestApp({}, { bundle: true, routes: [route('a', 'not-written-yet'), route('b', 'also-missing')] });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MissingHandlerError);
    expect((error as Error).message).toContain("functions/handlers/not-written-yet.ts (used by route 'a')");
    expect((error as Error).message).toContain("functions/handlers/also-missing.ts (used by route 'b')");
  });
});

describe('bundles', () => {
  it('every existing handler bundles locally as minified ESM, its whole asset within 1.5 MB', async () => {
    // Settings that switch every action on, so every handler module is in the list.
    const actions = actionsConfigOf(
      testInfraConfig({
        actions: { ACTIONS_EINVOICE_PARTNERS: '1', ACTIONS_EMAIL_PARTNERS: '2' },
      }),
    );
    const handlers = [
      ...new Set([
        POLLER_HANDLER,
        ...buildRoutes(actions).map((r) => r.handler),
        ...buildScheduledActions(actions).map((a) => a.handler),
      ]),
    ];
    expect(handlers).toEqual(
      expect.arrayContaining(['transfer-documents', 'archive-isdoc', 'send-invoice', 'track-einvoices']),
    );
    const present = handlers.filter((h) => findHandlerEntry(h) !== undefined);
    // Every handler the routing table can name exists: none is left out of the bundle check.
    expect(present).toEqual(handlers);
    const outdir = mkdtempSync(join(tmpdir(), 'cdk-bundles-'));
    outdirs.push(outdir);
    // Only the handlers that exist: one route each; the poller only if its module is there.
    const routes = present.filter((h) => h !== POLLER_HANDLER).map((h) => route(`bundle-${h}`, h));
    if (!present.includes(POLLER_HANDLER)) {
      expect(() => buildTestApp({}, { bundle: true, routes, scheduledActions: [], outdir })).toThrow(
        MissingHandlerError,
      );
      return;
    }
    const t = buildTestApp({}, { bundle: true, routes, scheduledActions: [], outdir });
    const resources = t.statelessTemplate.toJSON().Resources as Record<
      string,
      { Properties: { Code?: { S3Key?: string } } }
    >;
    const sizes: Record<string, number> = {};
    const dirs: Record<string, string> = {};
    for (const handler of present) {
      const path = handler === POLLER_HANDLER ? 'Poller' : `Route-bundle-${handler}`;
      const fn = t.stateless.node.findChild(path).node.findChild('Function');
      const id = t.stateless.resolve(
        (fn.node.defaultChild as unknown as { logicalId: string }).logicalId,
      ) as string;
      const key = resources[id]!.Properties.Code!.S3Key!;
      const dir = join(outdir, `asset.${key.replace(/\.zip$/, '')}`);
      dirs[handler] = dir;
      const code = readFileSync(join(dir, 'index.mjs'), 'utf8');
      expect(code.startsWith(REQUIRE_SHIM_BANNER), handler).toBe(true);
      // The default deployment ships no source map (`sourceMaps` is off) and no X-Ray SDK (`tracing` is off).
      expect(code, handler).not.toMatch(/sourceMappingURL/);
      expect(existsSync(join(dir, 'index.mjs.map')), handler).toBe(false);
      expect(code.includes('aws-xray-sdk'), handler).toBe(false);
      // Every file of the asset counts: the bundle and the WebAssembly shipped beside it.
      sizes[handler] = assetFiles(dir).reduce((sum, f) => sum + f.bytes, 0);
      expect(sizes[handler]).toBeGreaterThan(0);
    }
    expect(Object.keys(sizes).sort()).toEqual([...present].sort());
    console.info('handler asset sizes (bytes, every file of the asset):', sizes);
    const over = Object.entries(sizes).filter(([, bytes]) => bytes > BUNDLE_LIMIT_BYTES);
    expect(over, `assets over ${BUNDLE_LIMIT_BYTES} bytes`).toEqual([]);
    // Only the archive carries libxml2 (its WebAssembly compressed beside the bundle) …
    for (const [handler, dir] of Object.entries(dirs)) {
      const code = readFileSync(join(dir, 'index.mjs'), 'utf8');
      // Non-ASCII text is written as UTF-8 (`charset: 'utf8'`), not as escapes, and no WebAssembly
      // is left in the bundle as a string.
      expect(code.match(/\\x[89a-f][0-9a-f]/g)?.length ?? 0, handler).toBeLessThan(100);
      expect(code.includes('xmlSchemaValidateDoc'), handler).toBe(handler === 'archive-isdoc');
      expect(existsSync(join(dir, LIBXML2_WASM_FILE)), handler).toBe(handler === 'archive-isdoc');
    }
    // … and its bundle runs: it loads libxml2 and the embedded schema, and gives verdicts.
    const archive = (await import(pathToFileURL(join(dirs['archive-isdoc']!, 'index.mjs')).href)) as {
      isdocSchema: { validate(xml: Uint8Array): Promise<{ valid: boolean; errors: string[] }> };
    };
    const verdict = await archive.isdocSchema.validate(
      new TextEncoder().encode(
        '<Invoice xmlns="http://isdoc.cz/namespace/2013" version="6.0.2"><ID>FV1</ID></Invoice>',
      ),
    );
    expect(verdict.valid).toBe(false);
    expect(verdict.errors[0]).toMatch(
      /Expected is \( \{http:\/\/isdoc\.cz\/namespace\/2013\}DocumentType \)/,
    );
  }, 180_000); // esbuild runs once per handler: minutes on a loaded 2-core machine
});
