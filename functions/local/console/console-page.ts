/**
 * The console's one page: plain HTML and CSS here, its script in `console-script.ts`. No build
 * step, nothing fetched from anywhere but the console itself (the CSP says so too).
 */
import { CONSOLE_SCRIPT } from './console-script.js';

const STYLE = `
:root { --fg:#1d2330; --muted:#667085; --line:#e4e7ec; --bg:#f8f9fb; --ok:#067647; --bad:#b42318; --warn:#b54708; --accent:#2e5aac; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color:var(--fg); background:var(--bg); }
header { display:flex; align-items:center; gap:24px; padding:10px 20px; background:#162035; color:#fff; }
header h1 { font-size:16px; margin:0; font-weight:600; }
header nav a { color:#c8d3ea; text-decoration:none; margin-right:16px; padding:4px 0; }
header nav a.active { color:#fff; border-bottom:2px solid #fff; }
#live { margin-left:auto; font-size:12px; color:#c8d3ea; }
main { padding:16px 20px; }
section { display:none; } section.active { display:block; }
table { border-collapse:collapse; width:100%; background:#fff; border:1px solid var(--line); }
th, td { text-align:left; padding:5px 8px; border-bottom:1px solid var(--line); vertical-align:top; font-size:13px; }
th { background:#f2f4f7; font-weight:600; color:#344054; }
tr.clickable:hover { background:#eef4ff; cursor:pointer; } tr.selected { background:#dbe7ff; }
.mono { font-family:ui-monospace, Menlo, Consolas, monospace; font-size:12px; }
.badge { display:inline-block; padding:0 6px; border-radius:8px; font-size:11px; margin:0 3px 2px 0; border:1px solid var(--line); background:#fff; }
.delivered, .healthy, .valid { color:var(--ok); border-color:#abefc6; background:#ecfdf3; }
.dead-lettered, .unhealthy, .invalid { color:var(--bad); border-color:#fecdca; background:#fef3f2; }
.retrying, .pending, .paused, .starting { color:var(--warn); border-color:#fedf89; background:#fffaeb; }
form.filters { display:flex; gap:8px; flex-wrap:wrap; margin-bottom:10px; align-items:end; }
form.filters label { display:flex; flex-direction:column; font-size:11px; color:var(--muted); }
input, select { font:inherit; padding:4px 6px; border:1px solid #d0d5dd; border-radius:4px; }
button { font:inherit; padding:4px 10px; border:1px solid #d0d5dd; border-radius:4px; background:#fff; cursor:pointer; }
button.primary { background:var(--accent); color:#fff; border-color:var(--accent); }
.split { display:grid; grid-template-columns: minmax(0,1.15fr) minmax(0,1fr); gap:16px; align-items:start; }
.panel { background:#fff; border:1px solid var(--line); padding:12px; min-height:120px; }
.panel h2, .panel h3 { margin:0 0 8px; font-size:15px; }
.panel h3 { margin-top:14px; font-size:13px; color:#344054; }
pre { background:#f6f8fa; padding:8px; overflow:auto; max-height:320px; margin:0; }
.muted { color:var(--muted); }
.note { font-size:12px; }
.split > div:first-child { overflow:auto; }
/* The events and an event's routes fit their boxes at 1024 px and wider: the events' columns are
   fixed shares of the box (a detail-type breaks after its dots, a long word wherever it must), an
   S3 key in an event's routes breaks anywhere rather than push the table past its panel. */
table.events { table-layout:fixed; }
col.c-time { width:72px; } col.c-type { width:30%; } col.c-connection { width:18%; } col.c-doc { width:24%; } col.c-routes { width:28%; }
table.events th, table.events td { padding:5px 6px; overflow-wrap:break-word; }
table.events .badge { overflow-wrap:anywhere; }
#event-detail td { overflow-wrap:anywhere; }
table.routes td.route { width:40%; }
.split > .panel { position:sticky; top:8px; max-height:calc(100vh - 16px); overflow:auto; }
@media (max-width: 1200px) { .split { grid-template-columns: minmax(0,1.5fr) minmax(0,1fr); } }
td.nowrap { white-space:nowrap; }
.error { color:var(--bad); }
.parties { display:grid; grid-template-columns:1fr 1fr; gap:12px; }
.num { text-align:right; font-variant-numeric: tabular-nums; }
.chart { display:block; background:#fbfcfe; border:1px solid var(--line); }
#toast { position:fixed; right:16px; bottom:16px; background:#162035; color:#fff; padding:8px 12px; border-radius:6px; display:none; }
`;

const BODY = `
<header>
  <h1>accounting-events console</h1>
  <nav>
    <a href="#events" data-tab="events">Events</a>
    <a href="#connections" data-tab="connections">Connections</a>
    <a href="#checkpoints" data-tab="checkpoints">Checkpoints</a>
    <a href="#dead-letters" data-tab="dead-letters">Dead letters</a>
    <a href="#archive" data-tab="archive">Archive</a>
    <a href="#deliveries" data-tab="deliveries">Deliveries</a>
    <a href="#holds" data-tab="holds">Holds</a>
    <a href="#payments" data-tab="payments">Payments</a>
    <a href="#einvoicing" data-tab="einvoicing">E-invoicing</a>
  </nav>
  <span id="live" data-testid="live">connecting…</span>
</header>
<main>
  <section id="tab-events">
    <form class="filters" id="event-filters">
      <label>detail-type <input name="type" placeholder="IssuedInvoice.*|ReceivedOrder.Created" size="30" data-testid="filter-type"></label>
      <label>connection <input name="connection" size="12"></label>
      <label>document number <input name="doc" size="12"></label>
      <label>since <input name="since" placeholder="2026-01-31T12:00:00Z" size="20"></label>
      <label>until <input name="until" placeholder="2026-01-31T13:00:00Z" size="20"></label>
      <button type="submit" class="primary">Filter</button>
      <button type="button" id="replay-filtered">Replay matching</button>
      <span id="filter-error" class="error"></span>
    </form>
    <div class="split">
      <div><table class="events"><colgroup><col class="c-time"><col class="c-type"><col class="c-connection"><col class="c-doc"><col class="c-routes"></colgroup>
        <thead><tr><th>time</th><th>detail-type</th><th>connection</th><th>document</th><th>routes</th></tr></thead>
        <tbody id="events" data-testid="events"></tbody></table>
        <p class="muted" id="events-count"></p></div>
      <div class="panel" id="event-detail" data-testid="event-detail"><p class="muted">Pick an event to see its JSON, its fields and what each route did with it.</p></div>
    </div>
  </section>
  <section id="tab-connections">
    <table><thead><tr><th>connection</th><th>state</th><th>last poll</th><th>lag</th><th>events/min</th><th>events</th><th>errors</th><th>lag and events per minute, last hour</th></tr></thead>
      <tbody id="connections"></tbody></table>
  </section>
  <section id="tab-checkpoints">
    <table><thead><tr><th>connection</th><th>collection</th><th>watermark</th><th>lag</th><th>last poll</th><th>last error</th></tr></thead>
      <tbody id="checkpoints"></tbody></table>
  </section>
  <section id="tab-dead-letters">
    <p><button id="redrive-all" class="primary" data-testid="redrive-all">Redrive all</button> <span class="muted" id="dead-count"></span></p>
    <table><thead><tr><th>at</th><th>route</th><th>detail-type</th><th>receives</th><th>reason</th><th>original event</th><th></th></tr></thead>
      <tbody id="dead-letters" data-testid="dead-letters"></tbody></table>
  </section>
  <section id="tab-archive">
    <form class="filters" id="archive-filters">
      <label>connection <select name="connection"></select></label>
      <label>kind <select name="kind"></select></label>
      <label>month <select name="month"></select></label>
    </form>
    <div class="split">
      <div><table><thead><tr><th>connection</th><th>kind</th><th>month</th><th>file</th><th class="num">bytes</th></tr></thead>
        <tbody id="archive" data-testid="archive"></tbody></table></div>
      <div class="panel" id="invoice" data-testid="invoice"><p class="muted">Pick an ISDOC to read it as an invoice.</p></div>
    </div>
  </section>
  <section id="tab-deliveries">
    <table><thead><tr><th>at</th><th>subscriber</th><th>detail-type</th><th>event</th><th>receive</th><th>status</th><th class="num">after publish</th><th>error</th></tr></thead>
      <tbody id="deliveries"></tbody></table>
  </section>
  <section id="tab-holds">
    <p class="muted">Invoices held for a person: their partner was matched on data the customer typed at checkout. Nothing contacts the partner (sending, reminders) until a person releases it here or with <span class="mono">holds release</span>.</p>
    <table><thead><tr><th>status</th><th>connection</th><th>document</th><th>from order</th><th>held</th><th>released</th><th></th></tr></thead>
      <tbody id="holds" data-testid="holds"></tbody></table>
  </section>
  <section id="tab-payments">
    <p class="muted">Bank transactions the payment action could not match to one open invoice (newest first; since this run started). Assign one to an invoice: the payment action liquidates it once, as if it had matched. An overpayment's surplus is shown, not assignable: refund it or issue a credit note.</p>
    <table><thead><tr><th>booked</th><th>connection</th><th class="num">amount</th><th>VS</th><th>from</th><th>message</th><th>reason</th><th>assign to</th></tr></thead>
      <tbody id="payments" data-testid="payments"></tbody></table>
  </section>
  <section id="tab-einvoicing">
    <p class="muted">Readiness for Slovakia's e-invoicing mandate: of the issued invoices of the last 90 days, those the policy would e-invoice, those the pre-flight would block and by which rule (fix them in the service), and the partners without a DIČ. The same report as <span class="mono">einvoice readiness</span> and the daily report on AWS; nothing is sent. <span id="einvoicing-note"></span></p>
    <table><thead><tr><th>connection</th><th>policy</th><th>issued</th><th class="num">invoices</th><th class="num">e-invoice</th><th class="num">ready</th><th class="num">blocked</th><th class="num">partners without DIČ</th><th>blocked by rule</th></tr></thead>
      <tbody id="einvoicing-counts" data-testid="einvoicing-counts"></tbody></table>
    <h3>Blocked invoices</h3>
    <table><thead><tr><th>connection</th><th>document</th><th>issued</th><th>partner</th><th>rules</th><th>fields to fix</th></tr></thead>
      <tbody id="einvoicing-blocked"></tbody></table>
  </section>
</main>
<div id="toast"></div>
`;

/** The page's HTML; its style and script carry `nonce`, the one the policy of this answer allows. */
export function consolePage(nonce: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>accounting-events console</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,"><style nonce="${nonce}">${STYLE}</style></head>
<body>${BODY}<script nonce="${nonce}">${CONSOLE_SCRIPT}</script></body></html>`;
}
