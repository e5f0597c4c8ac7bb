/**
 * The console page's script (plain JavaScript, no backticks or template literals inside): tabs,
 * the JSON API with the run's token, the live stream (Server-Sent Events) and the views. Data is
 * put into the page as text nodes only, never as HTML.
 */
export const CONSOLE_SCRIPT = String.raw`
'use strict';
/* The token arrives in the address once; it is kept in this tab's session storage (a reload finds
   it there) and taken out of the address bar and the history at once. Every request carries it in
   the X-Console-Token header, never in a URL. */
var TOKEN = (function () {
  var given = new URLSearchParams(location.search).get('token');
  if (given) { try { sessionStorage.setItem('console-token', given); } catch (e) { /* storage off: this load only */ } }
  history.replaceState(null, '', location.pathname + location.hash);
  try { return given || sessionStorage.getItem('console-token') || ''; } catch (e) { return given || ''; }
})();
var state = { selected: null, filter: {}, archive: [], tab: 'events' };

function h(tag, attrs) {
  var el = document.createElement(tag);
  Object.keys(attrs || {}).forEach(function (k) {
    if (k === 'text') el.textContent = attrs[k];
    else if (k === 'onclick') el.addEventListener('click', attrs[k]);
    else el.setAttribute(k, attrs[k]);
  });
  function add(c) {
    if (c === null || c === undefined) return;
    if (Array.isArray(c)) { c.forEach(add); return; }
    el.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
  for (var i = 2; i < arguments.length; i++) add(arguments[i]);
  return el;
}
function $(id) { return document.getElementById(id); }
function fill(id, rows) { var el = $(id); el.replaceChildren.apply(el, rows); }
function query(params) {
  var q = new URLSearchParams();
  Object.keys(params || {}).forEach(function (k) { if (params[k]) q.set(k, params[k]); });
  return q.toString();
}
function authorized(path, params) {
  return fetch(path + '?' + query(params), { headers: { 'x-console-token': TOKEN } });
}
function get(path, params) {
  return authorized(path, params).then(function (r) {
    return r.json().then(function (body) { if (!r.ok) throw new Error(body.error || r.statusText); return body; });
  });
}
function post(path, body) {
  return fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-console-token': TOKEN }, body: JSON.stringify(body) })
    .then(function (r) { return r.json().then(function (b) { if (!r.ok) throw new Error(b.error || r.statusText); return b; }); });
}
function toast(text) {
  var t = $('toast'); t.textContent = text; t.style.display = 'block';
  clearTimeout(toast.timer); toast.timer = setTimeout(function () { t.style.display = 'none'; }, 3000);
}
function ago(ms) {
  if (ms === undefined || ms === null) return '-';
  var s = Math.round(ms / 1000);
  if (s < 120) return s + ' s'; if (s < 7200) return Math.round(s / 60) + ' min'; return Math.round(s / 3600) + ' h';
}
/* A long text (an S3 key) cut in its middle: where it starts and how it ends both stay. */
function middle(text, n) { return text.length <= n ? text : text.slice(0, Math.ceil((n - 1) / 2)) + '\u2026' + text.slice(text.length - Math.floor((n - 1) / 2)); }
/* A detail-type that may break after its dots (IssuedAdvanceInvoice.<wbr>EInvoiceStatusChanged). */
function dotted(text) { return text.split('.').map(function (part, i, all) { return i < all.length - 1 ? [part + '.', h('wbr', {})] : part; }); }
function badge(text, cls) { return h('span', { class: 'badge ' + (cls || text) }, text); }
function time(iso) { return iso ? iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, '') : '-'; }

/* Tabs */
function show(tab) {
  state.tab = tab;
  document.querySelectorAll('section').forEach(function (s) { s.classList.toggle('active', s.id === 'tab-' + tab); });
  document.querySelectorAll('nav a').forEach(function (a) { a.classList.toggle('active', a.dataset.tab === tab); });
  (loaders[tab] || function () {})();
}
window.addEventListener('hashchange', function () { show(location.hash.slice(1) || 'events'); });

/* Events */
function routeBadges(routes) {
  var names = Object.keys(routes || {});
  if (names.length === 0) return h('span', { class: 'muted' }, 'no route');
  return h('span', {}, names.map(function (n) { return badge(n + ': ' + routes[n].status, routes[n].status); }));
}
function loadEvents() {
  return get('/api/events', state.filter).then(function (list) {
    $('filter-error').textContent = '';
    fill('events', list.map(function (e) {
      var tr = h('tr', { class: 'clickable' + (e.id === state.selected ? ' selected' : ''), 'data-id': e.id, 'data-type': e.detailType, onclick: function () { openEvent(e.id); } },
        h('td', { class: 'mono nowrap', title: e.time }, time(e.time).slice(11)), h('td', {}, dotted(e.detailType)), h('td', {}, e.connection || ''),
        h('td', {}, e.documentNumber || '', e.note ? h('div', { class: 'muted note', title: e.note }, middle(e.note, 44)) : null), h('td', {}, routeBadges(e.routes)));
      return tr;
    }));
    $('events-count').textContent = list.length + ' events shown (newest first)';
  }).catch(function (err) { $('filter-error').textContent = err.message; });
}
function openEvent(id) {
  state.selected = id;
  document.querySelectorAll('#events tr').forEach(function (tr) { tr.classList.toggle('selected', tr.dataset.id === id); });
  return get('/api/events/' + encodeURIComponent(id)).then(renderEvent).catch(function (err) {
    fill('event-detail', [h('p', { class: 'error' }, err.message)]);
  });
}
function renderEvent(e) {
  // Two columns, so the table fits its panel at 1024 px: the route with its status and deliveries,
  // then what it did (its outcome event and note, or its error).
  var routes = Object.keys(e.routes).map(function (name) {
    var r = e.routes[name];
    var out = r.outcomeEvent ? h('span', {}, r.outcomeEvent.detailType, r.outcomeEvent.note ? h('div', { class: 'muted' }, r.outcomeEvent.note) : null) : (r.error ? null : '-');
    var delivery = r.attempts + (r.attempts === 1 ? ' receive' : ' receives') + (r.durationMs === undefined ? '' : ' · ' + r.durationMs + ' ms after publish');
    return h('tr', { 'data-route': name }, h('td', { class: 'route' }, h('div', {}, name), badge(r.status, r.status), h('div', { class: 'muted' }, delivery)),
      h('td', { 'data-testid': 'outcome' }, out, r.error ? h('div', { class: 'error' }, r.error) : null));
  });
  var fields = e.fields.map(function (f) {
    return h('tr', {}, h('td', { class: 'mono' }, f.path), h('td', { class: 'muted' }, f.type), h('td', {}, f.description));
  });
  fill('event-detail', [
    h('h2', {}, e.detailType), h('p', { class: 'muted mono' }, e.id + ' · ' + e.source + ' · ' + time(e.time)),
    h('button', { class: 'primary', onclick: function () { post('/api/replay', { id: e.id }).then(function (r) { toast('replayed ' + r.replayed + ' event'); }, function (err) { toast(err.message); }); } }, 'Replay this event'),
    h('h3', {}, 'Routes and what each did'),
    routes.length ? h('table', { class: 'routes' }, h('thead', {}, h('tr', {}, h('th', {}, 'route'), h('th', {}, 'what it did'))), h('tbody', {}, routes))
      : h('p', { class: 'muted' }, 'No route matched this event.'),
    h('h3', {}, 'Event'), h('pre', { class: 'mono', 'data-testid': 'event-json' }, JSON.stringify(e.event, null, 2)),
    h('h3', {}, 'Fields of the detail (from its schema)'),
    h('table', {}, h('thead', {}, h('tr', {}, h('th', {}, 'field'), h('th', {}, 'type'), h('th', {}, 'description'))), h('tbody', {}, fields))
  ]);
}
$('event-filters').addEventListener('submit', function (ev) {
  ev.preventDefault();
  state.filter = Object.fromEntries(new FormData(ev.target));
  loadEvents();
});
$('replay-filtered').addEventListener('click', function () {
  var criteria = Object.keys(state.filter).filter(function (k) { return state.filter[k]; });
  var filter = criteria.length ? state.filter : { all: true };
  if (!confirm(criteria.length ? 'Publish the events matching this filter again (the latest 100 at most)?' : 'No filter is set: publish every event again (the latest 100 at most)?')) return;
  post('/api/replay', { filter: filter }).then(function (r) { toast('replayed ' + r.replayed + ' events'); }, function (err) { toast(err.message); });
});

/* Connections */
function chart(minutes) {
  var w = 240, hgt = 44, ns = 'http://www.w3.org/2000/svg';
  var svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('width', w); svg.setAttribute('height', hgt); svg.setAttribute('class', 'chart');
  var now = Math.floor(Date.now() / 60000);
  function x(minute) { return (59 - (now - minute)) / 60 * w; }
  function shape(tag, attrs) {
    var el = document.createElementNS(ns, tag);
    Object.keys(attrs).forEach(function (k) { el.setAttribute(k, attrs[k]); });
    svg.appendChild(el);
  }
  var maxEvents = Math.max.apply(null, minutes.map(function (m) { return m.events; }).concat([1]));
  minutes.forEach(function (m) {
    var bh = m.events / maxEvents * (hgt - 4);
    shape('rect', { x: x(m.minute).toFixed(1), y: (hgt - bh).toFixed(1), width: (w / 60 - 1).toFixed(1), height: bh.toFixed(1), fill: '#9db5e3' });
  });
  var lags = minutes.filter(function (m) { return m.lagMs !== undefined; });
  var maxLag = Math.max.apply(null, lags.map(function (m) { return m.lagMs; }).concat([1]));
  var points = lags.map(function (m) { return (x(m.minute) + w / 120).toFixed(1) + ',' + (hgt - 2 - m.lagMs / maxLag * (hgt - 6)).toFixed(1); });
  if (points.length > 1) shape('polyline', { points: points.join(' '), fill: 'none', stroke: '#b54708', 'stroke-width': '1.5' });
  points.forEach(function (p) { var xy = p.split(','); shape('circle', { cx: xy[0], cy: xy[1], r: '2', fill: '#b54708' }); });
  return h('div', {}, svg, h('div', { class: 'muted' }, 'bars: events per minute (max ' + maxEvents + ') · line: lag (max ' + ago(maxLag) + ')'));
}
function loadConnections() {
  return get('/api/connections').then(function (list) {
    fill('connections', list.map(function (c) {
      var last = c.minutes[c.minutes.length - 1];
      return h('tr', {}, h('td', {}, c.name), h('td', {}, badge(c.state, c.state), c.reason ? h('div', { class: 'error' }, c.reason) : null),
        h('td', {}, c.lastPollAt ? ago(Date.now() - c.lastPollAt) + ' ago' : '-'), h('td', {}, ago(c.lagMs)),
        h('td', { class: 'num' }, last ? last.events : 0), h('td', { class: 'num' }, c.events),
        h('td', { class: 'num' }, c.errors, c.lastError ? h('div', { class: 'error' }, c.lastError) : null),
        h('td', {}, chart(c.minutes)));
    }));
  });
}

/* Checkpoints */
function loadCheckpoints() {
  return get('/api/checkpoints').then(function (rows) {
    fill('checkpoints', rows.map(function (r) {
      return h('tr', {}, h('td', {}, r.connection), h('td', {}, r.collection), h('td', { class: 'mono' }, r.watermark || '-'),
        h('td', {}, ago(r.lagMs)), h('td', { class: 'mono' }, time(r.lastPollAt)), h('td', { class: 'error' }, r.lastError || ''));
    }));
  });
}

/* Dead letters */
function redrive(body) {
  return post('/api/dead-letters/redrive', body).then(function (r) { toast('redriven ' + r.count + ' to ' + r.routes.join(', ')); loadDeadLetters(); }, function (err) { toast(err.message); });
}
function loadDeadLetters() {
  return get('/api/dead-letters').then(function (list) {
    $('dead-count').textContent = list.length + ' dead letters';
    fill('dead-letters', list.map(function (l) {
      return h('tr', { 'data-route': l.route }, h('td', { class: 'mono' }, time(l.at)), h('td', {}, l.route), h('td', {}, l.detailType),
        h('td', { class: 'num' }, l.attempts), h('td', { class: 'error' }, l.error),
        h('td', {}, h('details', {}, h('summary', {}, l.eventId), h('pre', { class: 'mono' }, JSON.stringify(l.event, null, 2)))),
        h('td', {}, h('button', { onclick: function () { redrive({ key: l.key }); } }, 'Redrive')));
    }));
  });
}
$('redrive-all').addEventListener('click', function () { if (confirm('Redrive every dead letter?')) redrive({}); });

/* Archive */
function options(select, values) {
  var current = select.value;
  select.replaceChildren.apply(select, [h('option', { value: '' }, 'all')].concat(values.map(function (v) { return h('option', { value: v }, v); })));
  select.value = values.indexOf(current) >= 0 ? current : '';
}
function renderArchive() {
  var f = Object.fromEntries(new FormData($('archive-filters')));
  fill('archive', state.archive.filter(function (r) {
    return (!f.connection || r.connection === f.connection) && (!f.kind || r.kind === f.kind) && (!f.month || r.month === f.month);
  }).map(function (r) {
    return h('tr', { class: 'clickable', 'data-key': r.key, onclick: function () { openIsdoc(r.key); } }, h('td', {}, r.connection), h('td', {}, r.kind), h('td', {}, r.month), h('td', { class: 'mono' }, r.file), h('td', { class: 'num' }, r.size));
  }));
}
function loadArchive() {
  return get('/api/archive').then(function (rows) {
    state.archive = rows;
    var form = $('archive-filters');
    ['connection', 'kind', 'month'].forEach(function (k) {
      options(form.elements[k], Array.from(new Set(rows.map(function (r) { return r[k]; }))).sort());
    });
    renderArchive();
  });
}
$('archive-filters').addEventListener('change', renderArchive);
function party(title, p) {
  return h('div', {}, h('h3', {}, title), h('div', {}, h('strong', {}, p.name)), h('div', {}, p.address),
    h('div', { class: 'muted' }, 'ID ' + (p.id || '-') + (p.vatId ? ' · VAT ' + p.vatId : '')));
}
/* A download through fetch (the token in its header), saved from a blob URL. */
function download(key) {
  authorized('/api/archive/object', { key: key }).then(function (r) {
    if (!r.ok) return r.json().then(function (b) { throw new Error(b.error || r.statusText); });
    return r.blob().then(function (blob) {
      var a = h('a', { href: URL.createObjectURL(blob), download: key.split('/').pop() });
      document.body.appendChild(a); a.click(); a.remove();
      setTimeout(function () { URL.revokeObjectURL(a.href); }, 10000);
    });
  }).catch(function (err) { toast(err.message); });
}
function openIsdoc(key) {
  return get('/api/archive/isdoc', { key: key }).then(function (v) {
    var c = v.currency;
    fill('invoice', [
      h('h2', {}, 'Invoice ' + v.id), h('p', { class: 'muted' }, 'issued ' + v.issueDate + (v.taxPointDate ? ' · tax point ' + v.taxPointDate : '') + ' · ISDOC ' + v.version),
      h('p', { 'data-testid': 'verdict' }, badge(v.verdict.valid ? 'valid' : 'invalid'), ' against ' + v.verdict.schema,
        v.verdict.errors.length ? h('pre', { class: 'error' }, v.verdict.errors.join('\n')) : null,
        ' ', h('a', { href: '#archive', 'data-testid': 'download', onclick: function (ev) { ev.preventDefault(); download(key); } }, 'Download ISDOC')),
      h('div', { class: 'parties' }, party('Supplier', v.supplier), party('Customer', v.customer)),
      h('h3', {}, 'Lines'),
      h('table', {}, h('thead', {}, h('tr', {}, h('th', {}, '#'), h('th', {}, 'item'), h('th', { class: 'num' }, 'quantity'), h('th', { class: 'num' }, 'unit price'), h('th', { class: 'num' }, 'VAT %'), h('th', { class: 'num' }, 'without VAT'), h('th', { class: 'num' }, 'with VAT'))),
        h('tbody', {}, v.lines.map(function (l) {
          return h('tr', {}, h('td', {}, l.id), h('td', {}, l.description), h('td', { class: 'num' }, l.quantity + ' ' + l.unit), h('td', { class: 'num' }, l.unitPrice), h('td', { class: 'num' }, l.vatPercent), h('td', { class: 'num' }, l.amount), h('td', { class: 'num' }, l.amountWithVat));
        }))),
      h('h3', {}, 'VAT per rate'),
      h('table', { 'data-testid': 'vat' }, h('thead', {}, h('tr', {}, h('th', { class: 'num' }, 'rate %'), h('th', { class: 'num' }, 'taxable'), h('th', { class: 'num' }, 'VAT'), h('th', { class: 'num' }, 'total'))),
        h('tbody', {}, v.vat.map(function (s) { return h('tr', {}, h('td', { class: 'num' }, s.percent), h('td', { class: 'num' }, s.taxable), h('td', { class: 'num' }, s.tax), h('td', { class: 'num' }, s.total)); }))),
      h('h3', {}, 'Totals'),
      h('table', { 'data-testid': 'totals' }, h('tbody', {},
        h('tr', {}, h('th', {}, 'without VAT'), h('td', { class: 'num' }, v.totals.withoutVat + ' ' + c)),
        h('tr', {}, h('th', {}, 'VAT'), h('td', { class: 'num' }, v.totals.vat + ' ' + c)),
        h('tr', {}, h('th', {}, 'with VAT'), h('td', { class: 'num' }, v.totals.withVat + ' ' + c)),
        h('tr', {}, h('th', {}, 'payable'), h('td', { class: 'num' }, h('strong', {}, v.totals.payable + ' ' + c)))))
    ]);
  }).catch(function (err) { fill('invoice', [h('p', { class: 'error' }, err.message)]); });
}

/* Deliveries */
function loadDeliveries() {
  return get('/api/deliveries').then(function (list) {
    fill('deliveries', list.slice(0, 300).map(function (a) {
      return h('tr', {}, h('td', { class: 'mono' }, time(new Date(a.at).toISOString())), h('td', {}, a.subscriber), h('td', {}, a.detailType), h('td', { class: 'mono' }, a.eventId),
        h('td', { class: 'num' }, a.attempt), h('td', {}, badge(a.status, a.status)), h('td', { class: 'num' }, a.durationMs === undefined ? '-' : a.durationMs + ' ms'), h('td', { class: 'error' }, a.error || ''));
    }));
  });
}

/* Holds: released by a person, who names themselves (recorded in the event). */
function loadHolds() {
  return get('/api/holds').then(function (list) {
    fill('holds', list.map(function (x) {
      var release = x.status === 'held' ? h('button', { class: 'primary', 'data-testid': 'release', onclick: function () {
        var by = prompt('Release ' + (x.documentNumber || x.id) + ': the partner is checked. Your name (recorded):');
        if (!by) return;
        post('/api/holds/release', { connection: x.connection, id: x.id, by: by }).then(function () { toast('released'); loadHolds(); }, function (err) { toast(err.message); });
      } }, 'Release') : '';
      return h('tr', {}, h('td', {}, badge(x.status, x.status === 'held' ? 'paused' : 'delivered')), h('td', {}, x.connection), h('td', {}, x.documentNumber || x.id),
        h('td', {}, x.receivedOrder.documentNumber || x.receivedOrder.id), h('td', { class: 'mono' }, x.heldAt),
        h('td', {}, x.released ? x.released.at + ' by ' + x.released.by + ' (' + x.released.via + ')' : ''), h('td', {}, release));
    }));
  });
}

/* Payments: an unmatched transaction assigned by a person to a candidate or to an invoice id typed in. */
function assignPayment(x, target) {
  post('/api/payments/assign', { connection: x.connection, id: x.id, target: target })
    .then(function () { toast('assigned: the payment action liquidates it'); loadPayments(); }, function (err) { toast(err.message); });
}
function loadPayments() {
  return get('/api/payments/unmatched').then(function (list) {
    fill('payments', list.map(function (x) {
      var assign = [];
      if (x.assignable) {
        x.candidates.forEach(function (c) {
          assign.push(h('button', { class: 'primary', 'data-testid': 'assign-candidate', onclick: function () { assignPayment(x, { recordType: c.recordType, id: c.id }); } },
            (c.documentNumber || c.id) + ' (rest ' + c.restToPay + ')'));
        });
        var kind = h('select', {}, h('option', { value: 'IssuedInvoice' }, 'invoice'), h('option', { value: 'IssuedAdvanceInvoice' }, 'advance invoice'));
        var id = h('input', { size: '36', placeholder: 'the invoice Id in the service', 'data-testid': 'assign-id' });
        assign.push(h('span', {}, kind, id, h('button', { 'data-testid': 'assign', onclick: function () {
          if (id.value.trim()) assignPayment(x, { recordType: kind.value, id: id.value.trim() });
        } }, 'Assign')));
      }
      return h('tr', {}, h('td', { class: 'mono' }, x.bookingDate), h('td', {}, x.connection),
        h('td', { class: 'num' }, x.amount + ' ' + x.currency), h('td', { class: 'mono' }, x.variableSymbol || '-'),
        h('td', {}, x.counterparty || '-'), h('td', { class: 'note' }, x.message || ''),
        h('td', {}, badge(x.reason, x.assignable ? 'pending' : 'paused')), h('td', {}, assign));
    }));
  });
}

/* E-invoicing: the readiness report of each connection, as einvoice readiness and the daily report on AWS make it. */
function loadEInvoicing() {
  $('einvoicing-note').textContent = 'reading the issued invoices of the last 90 days…';
  return get('/api/einvoicing/readiness').then(function (reports) {
    $('einvoicing-note').textContent = reports.length ? '' : 'No connection is e-invoicing.';
    fill('einvoicing-counts', reports.map(function (r) {
      var c = r.counts;
      return h('tr', {}, h('td', {}, r.connection), h('td', {}, r.policy), h('td', { class: 'mono' }, r.period.from.slice(0, 10) + ' to ' + r.period.to.slice(0, 10)),
        h('td', { class: 'num' }, String(c.invoices)), h('td', { class: 'num' }, String(c.einvoice)), h('td', { class: 'num' }, String(c.ready)),
        h('td', { class: 'num', 'data-testid': 'einvoicing-blocked' }, String(c.blocked)), h('td', { class: 'num' }, String(r.partnersWithoutDic.length)),
        h('td', {}, r.rules.map(function (x) { return badge(x.rule + ' ' + x.invoices, 'unhealthy'); })));
    }));
    var blocked = [];
    reports.forEach(function (r) { r.blocked.forEach(function (b) { blocked.push(h('tr', {}, h('td', {}, r.connection), h('td', {}, b.documentNumber || b.id),
      h('td', { class: 'mono' }, (b.issueDate || '').slice(0, 10)), h('td', {}, b.partner.name || b.partner.id || '-'),
      h('td', {}, b.rules.map(function (x) { return badge(x, 'unhealthy'); })), h('td', { class: 'mono' }, b.fields.join(', ')))); }); });
    fill('einvoicing-blocked', blocked);
  }, function (err) { $('einvoicing-note').textContent = err.message; });
}

var loaders = { einvoicing: loadEInvoicing, payments: loadPayments, holds: loadHolds, events: loadEvents, connections: loadConnections, checkpoints: loadCheckpoints, 'dead-letters': loadDeadLetters, archive: loadArchive, deliveries: loadDeliveries };

/* Live stream: a change reloads the open view (at most every 2 s; not while the page is hidden). */
var reloadTimer = null;
var lastReload = 0;
function reloadView() {
  reloadTimer = null; lastReload = Date.now();
  if (document.hidden || state.tab === 'archive') return;
  (loaders[state.tab] || function () {})();
}
function changed(d) {
  if (state.selected && state.tab === 'events' && d.ids.indexOf(state.selected) >= 0) openEvent(state.selected);
  if (reloadTimer) return;
  reloadTimer = setTimeout(reloadView, Math.max(0, 2000 - (Date.now() - lastReload)));
}
/* The stream read through fetch (an EventSource cannot send the token header): its frames are
   "event: NAME" and "data: JSON" lines, ended by an empty line. */
function onFrame(frame) {
  var name = ''; var data = '';
  frame.split('\n').forEach(function (line) {
    if (line.indexOf('event: ') === 0) name = line.slice(7);
    else if (line.indexOf('data: ') === 0) data += line.slice(6);
  });
  if (name === 'hello') $('live').textContent = 'live';
  else if (name === 'changed') changed(JSON.parse(data));
}
function openStream() {
  authorized('/api/stream').then(function (r) {
    if (!r.ok || !r.body) throw new Error('stream refused');
    var reader = r.body.getReader(); var decoder = new TextDecoder(); var buffered = '';
    function pump() {
      return reader.read().then(function (chunk) {
        if (chunk.done) throw new Error('stream ended');
        buffered += decoder.decode(chunk.value, { stream: true });
        var end;
        while ((end = buffered.indexOf('\n\n')) >= 0) { onFrame(buffered.slice(0, end)); buffered = buffered.slice(end + 2); }
        return pump();
      });
    }
    return pump();
  }).catch(function () { $('live').textContent = 'disconnected (the run stopped?)'; });
}
openStream();
show(location.hash.slice(1) || 'events');
`;
