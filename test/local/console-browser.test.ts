/**
 * The console in a real browser (Debian's Chromium, driven by playwright-core): `run` starts with
 * the console, the page shows events arriving live, an event's routes and outcome, its replay, a filter by
 * detail-type, an archived ISDOC read as an invoice, a dead letter redriven and delivered; and a
 * request without the token, or from another origin (even one that knows the token), changes
 * nothing. With CONSOLE_SCREENSHOTS=1 it also writes the screenshots of docs/ (1280×800).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '#functions/local/cli.js';
import type { CommandContext } from '#functions/local/command.js';

/** Debian's Chromium (`apt-get install -y chromium`); `CHROMIUM_PATH` names another build. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const HAS_CHROMIUM = existsSync(CHROMIUM);
if (!HAS_CHROMIUM) {
  // Said once, whatever the reporter: the console's browser test did not run, and why.
  process.stderr.write(
    `console browser test skipped: no Chromium at ${CHROMIUM} (Debian: apt-get install -y chromium, or set CHROMIUM_PATH)\n`,
  );
}
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS === '1';

async function waitFor<T>(
  what: string,
  read: () => T | undefined | Promise<T | undefined>,
  ms = 30_000,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** An HTTP consumer of `--deliver-to` that refuses (400) until `accept` is set. */
function consumer() {
  const received: string[] = [];
  const state = { accept: false };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (state.accept) received.push(String(req.headers['webhook-id']));
      res.writeHead(state.accept ? 204 : 400).end();
    });
  });
  return { server, received, state };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe.runIf(HAS_CHROMIUM)('the console in a browser', () => {
  let dataDir: string;
  let browser: Browser;
  let page: Page;
  let url: string;
  let base: string;
  let token: string;
  const stop = new AbortController();
  let running: Promise<number>;
  const hook = consumer();
  let otherOrigin: Server;
  let otherBase: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'accounting-events-console-'));
    const hookUrl = await listen(hook.server);
    otherOrigin = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<p>elsewhere</p>'),
    );
    otherBase = await listen(otherOrigin);
    let consoleUrl: string | undefined;
    let log = '';
    const write = (text: string) => {
      log += text;
      consoleUrl ??= /console: (http:\/\/\S+)/.exec(log)?.[1];
    };
    const ctx: CommandContext = {
      stdout: { write, isTTY: false },
      stderr: { write, isTTY: false },
      env: {
        SANDBOX_DOCUMENTS: '12',
        SANDBOX_PARTNERS: '3',
        SANDBOX_ACTIVITY: '3',
        DELIVERY_SIGNING_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      },
      cwd: process.cwd(),
      signal: stop.signal,
    };
    running = runCli(
      [
        'run',
        ...['--data-dir', dataDir, '--interval', '500ms', '--console-port', '0'],
        ...['--deliver-to', `${hookUrl}/hook,BusinessPartner.Created`],
      ],
      ctx,
    );
    running.catch(() => {});
    url = await waitFor('the console URL', () => consoleUrl);
    base = url.slice(0, url.indexOf('/?'));
    token = new URL(url).searchParams.get('token') ?? '';
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--headless',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
        '--disable-sync',
      ],
    });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    stop.abort();
    await running;
    hook.server.close();
    otherOrigin?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }, 60_000);

  const shot = async (name: string) => {
    if (SCREENSHOTS) await page.screenshot({ path: join('docs', `console-${name}.png`) });
  };
  const rows = (tbody: string) => page.locator(`#${tbody} tr`);

  it('prints its URL with a per-run token, on 127.0.0.1', () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{43}$/);
  });

  it('shows events arriving live, without a reload', async () => {
    await page.goto(url);
    await expect.poll(() => page.textContent('#live'), { timeout: 15_000 }).toBe('live');
    // The token leaves the address bar and the history once the page has it.
    expect(page.url()).not.toContain('token');
    expect(await page.evaluate('location.href')).not.toContain('token');
    await waitFor('the first events', async () => (await rows('events').count()) > 0 || undefined);
    const first = await rows('events').first().getAttribute('data-id');
    // The sandbox's activity keeps changing records: new events reach the open page by its stream.
    await waitFor('a newer event', async () => {
      const top = await rows('events').first().getAttribute('data-id');
      return top !== first || undefined;
    });
  });

  it('filters by detail-type pattern, and an event shows its routes and the outcome of its action', async () => {
    await page.fill('[data-testid=filter-type]', 'IssuedInvoice.Created');
    await page.click('#event-filters button[type=submit]');
    await waitFor('only IssuedInvoice.Created rows', async () => {
      const types = await page.$$eval('#events tr', (trs) => trs.map((tr) => tr.getAttribute('data-type')));
      return (types.length > 0 && types.every((t) => t === 'IssuedInvoice.Created')) || undefined;
    });
    await rows('events').last().click();
    const archived = page.locator('#event-detail tr[data-route="archive-isdoc"]');
    await expect
      .poll(() => archived.textContent(), { timeout: 30_000 })
      .toContain('IssuedInvoice.IsdocArchived');
    expect(await archived.textContent()).toContain('delivered');
    expect(await page.textContent('[data-testid=event-json]')).toContain(
      '"detail-type": "IssuedInvoice.Created"',
    );
    expect(await page.textContent('#event-detail')).toContain('DocumentNumber');
    await shot('events');
  }, 60_000);

  it('replays one event through the bus: a new event with the same detail, matching the same routes', async () => {
    const json = JSON.parse((await page.textContent('[data-testid=event-json]')) ?? '{}') as {
      id: string;
      detail: { id: string };
    };
    await page.click('#event-detail button.primary');
    const replayed = await waitFor('the replayed event', async () => {
      const list = (await (
        await fetch(`${base}/api/events?type=IssuedInvoice.Created`, {
          headers: { 'x-console-token': token },
        })
      ).json()) as {
        id: string;
      }[];
      for (const e of list) {
        if (e.id === json.id) continue;
        const full = (await (
          await fetch(`${base}/api/events/${e.id}`, { headers: { 'x-console-token': token } })
        ).json()) as {
          event: { detail: { id: string; idempotencyKey: string } };
          routes: Record<string, { status: string }>;
        };
        if (full.event.detail.id === json.detail.id) return full;
      }
      return undefined;
    });
    expect(Object.keys(replayed.routes).sort()).toEqual(['archive-isdoc', 'send-einvoice']);
  });

  it('opens an archived ISDOC as an invoice with its schema verdict, and downloads it', async () => {
    await page.goto(`${url}#archive`);
    await waitFor('archived ISDOC', async () => (await rows('archive').count()) > 0 || undefined);
    await page.selectOption('#archive-filters select[name=kind]', 'IssuedInvoice');
    await rows('archive').first().click();
    await expect
      .poll(() => page.textContent('[data-testid=verdict]'), { timeout: 15_000 })
      .toContain('valid against ISDOC 6.0.2');
    expect(await page.textContent('[data-testid=verdict]')).not.toContain('invalid');
    expect(await page.locator('[data-testid=vat] tbody tr').count()).toBeGreaterThan(0);
    expect(await page.textContent('[data-testid=totals]')).toMatch(/payable\s*[\d.]+ EUR/);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.click('[data-testid=download]'),
    ]);
    const xml = await readFile(await download.path(), 'utf8');
    expect(xml).toMatch(/^<\?xml[^>]*>\s*<Invoice xmlns="http:\/\/isdoc\.cz\/namespace\/2013"/);
    await shot('archive');
  });

  it('refuses a request without the token, or from another origin, and nothing changes', async () => {
    const letters = async () =>
      (await (
        await fetch(`${base}/api/dead-letters`, { headers: { 'x-console-token': token } })
      ).json()) as unknown[];
    const before = await waitFor('dead letters of the refusing consumer', async () => {
      const list = await letters();
      return list.length > 0 ? list.length : undefined;
    });
    const post = (headers: Record<string, string>) =>
      request(`${base}/api/dead-letters/redrive`, { method: 'POST', headers, body: '{}' });
    const json = { 'content-type': 'application/json' };
    expect((await post(json)).statusCode).toBe(401);
    expect((await post({ ...json, 'x-console-token': 'wrong' })).statusCode).toBe(401);
    expect(
      (await post({ ...json, 'x-console-token': token, origin: 'http://evil.example' })).statusCode,
    ).toBe(403);
    expect((await post({ ...json, 'x-console-token': token, host: 'evil.example' })).statusCode).toBe(421);
    expect((await request(`${base}/api/dead-letters`)).statusCode).toBe(401);
    expect(
      (await request(`${base}/?token=${token}`, { headers: { host: 'attacker.example:80' } })).statusCode,
    ).toBe(421);
    // A page of another origin in the same browser, even one that knows the token.
    const other = await browser.newPage();
    await other.goto(otherBase);
    const attempts = await other.evaluate(
      async ({ target, t }) => {
        const out: string[] = [];
        for (const init of [
          { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: '{}' },
          {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-console-token': t },
            body: '{}',
          },
        ] as RequestInit[]) {
          try {
            const r = await fetch(`${target}/api/dead-letters/redrive`, init);
            out.push(String(r.status));
          } catch (error) {
            out.push(`blocked: ${String(error)}`);
          }
        }
        return out;
      },
      { target: base, t: token },
    );
    await other.close();
    expect(attempts[0]).toBe('0'); // opaque: the console answered 403 (Origin), nothing ran
    expect(attempts[1]).toMatch(/^blocked/); // the preflight gets no CORS answer
    expect(await letters()).toHaveLength(before);
  });

  it('redrives a dead letter through the bus and shows it delivered', async () => {
    hook.state.accept = true;
    await page.goto(`${url}#dead-letters`);
    await waitFor('dead letters listed', async () => (await rows('dead-letters').count()) > 0 || undefined);
    const before = await rows('dead-letters').count();
    await shot('dead-letters');
    const eventId = (await rows('dead-letters').first().locator('summary').textContent()) ?? '';
    await rows('dead-letters').first().locator('button').click();
    await expect.poll(() => rows('dead-letters').count(), { timeout: 15_000 }).toBe(before - 1);
    await waitFor('the redriven event at the consumer', () => hook.received.includes(eventId) || undefined);
    await page.goto(`${url}#deliveries`);
    await expect
      .poll(() => page.locator('#deliveries tr', { hasText: eventId }).first().textContent(), {
        timeout: 15_000,
      })
      .toContain('delivered');
  });

  // The laptop screens of an integrator: the events' routes column in sight beside the event
  // (long detail-types and S3 keys broken, not pushing it out), the event's route table within its
  // panel, a record event's fields listed, a filter error in the page's words.
  for (const [width, height] of [
    [1280, 800],
    [1024, 768],
  ] as const) {
    it(`fits ${width}×${height}: the routes column in sight, the route table whole, the fields listed`, async () => {
      const small = await browser.newPage({ viewport: { width, height } });
      try {
        await small.goto(url);
        await waitFor('an archived ISDOC in the list', async () => {
          const types = await small.$$eval('#events tr', (trs) =>
            trs.map((tr) => tr.getAttribute('data-type')),
          );
          return types.includes('IssuedInvoice.IsdocArchived') || undefined;
        });
        await small.locator('#events tr[data-type="IssuedInvoice.Created"]').last().click();
        await small.waitForSelector('#event-detail tr[data-route="archive-isdoc"]');
        // A string: this project's TypeScript has no DOM types (the page's own script is plain JS).
        const m = (await small.evaluate(`(() => {
          const table = document.querySelector('#events').closest('table');
          const routes = table.querySelectorAll('th')[4].getBoundingClientRect();
          const panel = document.querySelector('#event-detail');
          const fields = panel.querySelectorAll('table')[1];
          return {
            table: table.scrollWidth,
            box: table.parentElement.clientWidth,
            routesRight: routes.right,
            page: document.documentElement.scrollWidth,
            routeTable: panel.querySelector('table.routes').scrollWidth,
            panel: panel.clientWidth,
            fields: fields ? fields.querySelectorAll('tbody tr').length : 0,
          };
        })()`)) as Record<
          'table' | 'box' | 'routesRight' | 'page' | 'routeTable' | 'panel' | 'fields',
          number
        >;
        expect(m.table).toBeLessThanOrEqual(m.box);
        expect(m.routesRight).toBeLessThanOrEqual(width);
        expect(m.page).toBeLessThanOrEqual(width);
        expect(m.routeTable).toBeLessThanOrEqual(m.panel);
        expect(m.fields).toBeGreaterThan(5);
        await small.fill('[data-testid=filter-type]', 'Nope.*');
        await small.click('#event-filters button[type=submit]');
        await expect
          .poll(() => small.textContent('#filter-error'))
          .toBe('detail-type: "Nope.*" matches no detail-type of the event catalog');
      } finally {
        await small.close();
      }
    }, 60_000);
  }

  it('shows the connections and checkpoints', async () => {
    await page.goto(`${url}#connections`);
    await expect.poll(() => page.textContent('#connections'), { timeout: 15_000 }).toContain('healthy');
    await shot('connections');
    await page.goto(`${url}#checkpoints`);
    await expect
      .poll(() => page.textContent('#checkpoints'), { timeout: 15_000 })
      .toContain('IssuedInvoices');
  });
});
