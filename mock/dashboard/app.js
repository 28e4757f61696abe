// The mock's dashboard (served at /__mock/): plain browser JavaScript, no build step.
// Data comes from the mock's /__mock JSON endpoints and the API itself; every value is written
// with textContent, never as HTML (recorded objects are whatever clients sent).
'use strict';

(function dashboard() {
  const POLL_MS = 1000;
  const ORDER_PATH = '/manualProduction/rest/v1/orders/info/';
  const SESSION_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

  const $ = (id) => document.getElementById(id);
  const el = (tag, text, className) => {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (className) node.className = className;
    return node;
  };

  const params = new URLSearchParams(location.search);
  $('origin').textContent = location.origin;
  $('session').value = params.get('session') || '';

  function session() {
    return $('session').value.trim();
  }

  function sessionHeaders() {
    const name = session();
    return name ? { 'X-Mock-Session': name } : {};
  }

  /** `1 container`, `0 containers`, `2 containers`: a count with its noun in the right number. */
  function count(n, one, many) {
    return `${n} ${n === 1 ? one : many}`;
  }

  function say(text, kind) {
    const message = $('message');
    message.textContent = text;
    message.className = kind || '';
  }

  /** The detail of a problem+json answer, or the status line. */
  async function describe(response) {
    try {
      const body = await response.json();
      if (body && typeof body.detail === 'string') return `${response.status} ${body.title || ''}: ${body.detail}`;
    } catch {
      // not JSON: fall through
    }
    return `${response.status} ${response.statusText}`;
  }

  // ---- fixture orders with their lots --------------------------------------------------------

  async function loadOrders() {
    const box = $('orders');
    box.replaceChildren(el('p', 'Loading…', 'empty'));
    try {
      const listed = await fetch('/__mock/orders');
      if (!listed.ok) throw new Error(await describe(listed));
      const numbers = await listed.json();
      $('orders-count').textContent = `(${numbers.length})`;
      const token = $('api-token').value.trim() || 'dashboard';
      const cards = await Promise.all(
        numbers.map(async (number) => {
          const response = await fetch(ORDER_PATH + encodeURIComponent(number), { headers: { Authorization: `Bearer ${token}` } });
          if (!response.ok) return orderError(number, await describe(response));
          return orderCard(await response.json());
        }),
      );
      box.replaceChildren(...cards);
    } catch (error) {
      box.replaceChildren(el('p', `Cannot load the orders: ${error.message}`, 'error'));
    }
  }

  function orderError(number, text) {
    const card = el('article', undefined, 'order');
    card.dataset.order = number;
    card.append(el('h3', number), el('p', `Cannot load this order (${text}). Enter an API token the mock accepts.`, 'error'));
    return card;
  }

  function orderCard(info) {
    const order = info.order || {};
    const card = el('article', undefined, 'order');
    card.dataset.order = order.orderNumber;
    const title = el('h3', order.orderNumber);
    title.append(' ', el('span', order.status, 'badge'));
    card.append(
      title,
      el(
        'p',
        `customer ${order.customerId} · ordered ${order.orderDate} · delivery ${order.deliveryDate} · ${count(info.containers.length, 'container', 'containers')} · ${count(info.charges.length, 'charge', 'charges')}`,
        'meta',
      ),
    );
    const lots = info.lots || [];
    if (lots.length === 0) {
      card.append(el('p', 'No lots.', 'empty'));
      return card;
    }
    const table = el('table', undefined, 'lots');
    const head = el('tr');
    for (const name of ['lot id', 'lot number', 'article', 'supplier', 'quantity', 'status']) head.append(el('th', name));
    table.append(el('thead'), el('tbody'));
    table.tHead.append(head);
    for (const lot of lots) {
      const row = el('tr');
      row.dataset.lot = lot.id;
      for (const value of [lot.id, lot.lotNumber, lot.articleNr, lot.supplierNr, `${lot.quantity} ${lot.unit}`, lot.status])
        row.append(el('td', value));
      table.tBodies[0].append(row);
    }
    card.append(table);
    return card;
  }

  // ---- recorded transfers and samples, polled ------------------------------------------------

  const shown = { transfers: '', samples: '' };
  // The listings page (issue 11): the dashboard shows PAGE records at a time, from `after` on, and
  // follows the listing's `Link: rel="next"` header, so no session size breaks it.
  const PAGE = 200;
  const paging = {
    transfers: { path: '/__mock/lot-transfers', after: 0, next: undefined, start: 0 },
    samples: { path: '/__mock/test-samples', after: 0, next: undefined, start: 0 },
  };

  /** The `after` of a listing's rel="next" link, or undefined on the last page. */
  function nextAfter(response) {
    const link = response.headers.get('link') || '';
    const match = /<([^>]+)>;\s*rel="next"/.exec(link);
    if (!match) return undefined;
    const after = new URL(match[1], location.origin).searchParams.get('after');
    return after === null ? undefined : Number(after);
  }

  function fetchPage(kind, headers) {
    const state = paging[kind];
    return fetch(`${state.path}?limit=${PAGE}&after=${state.after}`, { headers });
  }

  const COLUMNS = {
    transfers: (t) => [
      t.id,
      t.fk_lot_id,
      t.lotnumber,
      `${t.source_scancode} → ${t.target_scancode}`,
      t.amount,
      t.completed ? 'yes' : 'no',
      t.created,
    ],
    samples: (s) => [s.id, s.sample_number, s.fk_lot_id, s.lotnumber, s.fk_user_id, s.status, s.notes, s.created],
  };

  function renderRecords(kind, records, next) {
    const state = paging[kind];
    state.next = next;
    $(`${kind}-pager`).hidden = next === undefined && state.after === 0;
    $(`${kind}-next`).disabled = next === undefined;
    $(`${kind}-first`).disabled = state.after === 0;
    const text = JSON.stringify([state.after, next, records]);
    if (text === shown[kind]) return;
    shown[kind] = text;
    const rows = records.map((record) => {
      const row = el('tr');
      row.dataset.id = record.id;
      for (const value of COLUMNS[kind](record)) row.append(el('td', value));
      return row;
    });
    $(kind).tBodies[0].replaceChildren(...rows);
    const paged = next !== undefined || state.after > 0;
    $(`${kind}-count`).textContent = paged
      ? `(${state.start + 1}–${state.start + records.length}${next !== undefined ? ', more' : ''})`
      : `(${records.length})`;
    $(`${kind}-empty`).hidden = records.length > 0 || state.after > 0;
  }

  // ---- injected faults: the session's rules (GET/POST/DELETE /__mock/faults) -----------------

  let shownFaults = '';
  let catalogue = [];

  function adminHeaders(headers) {
    const admin = $('admin-token').value.trim();
    return admin ? { ...headers, Authorization: `Bearer ${admin}` } : headers;
  }

  /** Fills the fault and operation choices from the mock's own catalogue (once). */
  function fillFaultChoices(listing) {
    if (catalogue.length > 0) return;
    catalogue = listing.faults;
    $('fault-kind').replaceChildren(...catalogue.map((f) => Object.assign(el('option', f.kind), { value: f.kind, title: f.does })));
    for (const id of listing.operations) $('fault-operation').append(Object.assign(el('option', id), { value: id }));
    showSyntax();
  }

  function showSyntax() {
    const kind = catalogue.find((f) => f.kind === $('fault-kind').value);
    $('fault-syntax').textContent = kind ? kind.syntax : '';
    $('fault-param').disabled = kind !== undefined && kind.param === 'none';
  }

  function renderFaults(listing) {
    fillFaultChoices(listing);
    const text = JSON.stringify(listing.rules);
    if (text === shownFaults) return;
    shownFaults = text;
    const rows = listing.rules.map((rule) => {
      const row = el('tr');
      row.dataset.id = rule.id;
      const left = rule.remaining === null ? 'any' : rule.remaining;
      const operations = rule.operations.length === 0 ? 'every operation' : rule.operations.join(', ');
      for (const value of [rule.id, rule.fault, operations, left, rule.hits, new Date(rule.expiresAt).toLocaleTimeString()])
        row.append(el('td', value));
      const remove = el('button', 'Remove');
      remove.type = 'button';
      remove.addEventListener('click', () => void removeFault(rule.id));
      const cell = el('td');
      cell.append(remove);
      row.append(cell);
      return row;
    });
    $('faults').tBodies[0].replaceChildren(...rows);
    $('faults-count').textContent = `(${rows.length})`;
    $('faults-empty').hidden = rows.length > 0;
  }

  async function addFault(event) {
    event.preventDefault();
    const param = $('fault-param').disabled ? '' : $('fault-param').value.trim();
    const rule = { fault: param ? `${$('fault-kind').value}:${param}` : $('fault-kind').value };
    if ($('fault-operation').value) rule.operations = [$('fault-operation').value];
    if ($('fault-count').value) rule.count = Number($('fault-count').value);
    if ($('fault-seconds').value) rule.seconds = Number($('fault-seconds').value);
    try {
      const response = await fetch('/__mock/faults', {
        method: 'POST',
        headers: adminHeaders({ ...sessionHeaders(), 'Content-Type': 'application/json' }),
        body: JSON.stringify(rule),
      });
      if (response.status === 201) {
        const added = await response.json();
        say(`Fault rule ${added.id} added: ${added.fault}.`, 'ok');
        void poll();
      } else {
        say(`Fault rule refused: ${await describe(response)}`, 'error');
      }
    } catch (error) {
      say(`Adding the fault rule failed: ${error.message}`, 'error');
    }
  }

  async function removeFault(id) {
    const path = id === undefined ? '/__mock/faults' : `/__mock/faults/${id}`;
    try {
      const response = await fetch(path, { method: 'DELETE', headers: adminHeaders(sessionHeaders()) });
      if (response.status === 204) {
        say(id === undefined ? `Every fault rule of session "${session() || 'default'}" removed.` : `Fault rule ${id} removed.`, 'ok');
        void poll();
      } else {
        say(`Removing refused: ${await describe(response)}`, 'error');
      }
    } catch (error) {
      say(`Removing failed: ${error.message}`, 'error');
    }
  }

  $('fault-form').addEventListener('submit', (event) => void addFault(event));
  $('fault-kind').addEventListener('change', showSyntax);
  $('faults-clear').addEventListener('click', () => void removeFault(undefined));

  let timer;
  let polling = false;
  let again = false;
  let refreshFailed = false;

  /** Fetches the session's records; runs every POLL_MS, and at once after a session change or reset. */
  async function poll() {
    if (polling) {
      again = true;
      return;
    }
    polling = true;
    clearTimeout(timer);
    try {
      const headers = sessionHeaders();
      const [transfers, samples, faults] = await Promise.all([
        fetchPage('transfers', headers),
        fetchPage('samples', headers),
        fetch('/__mock/faults', { headers }),
      ]);
      if (!transfers.ok) throw new Error(await describe(transfers));
      if (!samples.ok) throw new Error(await describe(samples));
      if (!faults.ok) throw new Error(await describe(faults));
      renderRecords('transfers', await transfers.json(), nextAfter(transfers));
      renderRecords('samples', await samples.json(), nextAfter(samples));
      renderFaults(await faults.json());
      $('health').textContent = 'up';
      $('health').className = 'badge ok';
      $('refreshed').textContent = new Date().toLocaleTimeString();
      if (refreshFailed) say('');
      refreshFailed = false;
    } catch (error) {
      $('health').textContent = error instanceof TypeError ? 'unreachable' : 'error';
      $('health').className = 'badge bad';
      refreshFailed = true;
      say(`Refresh failed: ${error.message}`, 'error');
    } finally {
      polling = false;
      if (again) {
        again = false;
        void poll();
      } else {
        timer = setTimeout(poll, POLL_MS);
      }
    }
  }

  // ---- contract violations (only with goods-mock --proxy), polled ---------------------------

  let shownViolations = '';

  function renderViolations(report) {
    const text = JSON.stringify(report);
    if (text === shownViolations) return;
    shownViolations = text;
    $('violations-count').textContent = `(${report.total})`;
    $('violations-summary').textContent =
      `Proxy to ${report.upstream}, ${report.level} level: ${report.exchanges} exchanges judged, ` +
      `${report.total} violations (${report.client} by clients, ${report.server} by the server).` +
      (report.notJudged > 0 ? ` ${report.notJudged} exchanges forwarded but not judged (the judging queue was full).` : '');
    const rules = Object.entries(report.byRule).map(([rule, count]) => {
      const row = el('tr');
      row.dataset.rule = rule;
      row.append(el('td', rule), el('td', count));
      return row;
    });
    $('violations-rules').tBodies[0].replaceChildren(...rules);
    const rows = [];
    for (const exchange of report.recent) {
      for (const v of exchange.violations) {
        const row = el('tr', undefined, v.side);
        row.dataset.seq = exchange.seq;
        const where = v.in === 'body' ? `body ${v.pointer || '(whole body)'}` : v.in === 'header' ? `header ${v.pointer}` : v.in;
        for (const value of [exchange.seq, `${exchange.method} ${exchange.target}`, exchange.status, v.side, v.rule, where, v.reason])
          row.append(el('td', value));
        rows.push(row);
      }
    }
    $('violations-recent').tBodies[0].replaceChildren(...rows);
    $('violations-empty').hidden = report.total > 0;
  }

  async function pollViolations() {
    try {
      const response = await fetch('/__mock/violations');
      if (!response.ok) throw new Error(await describe(response));
      renderViolations(await response.json());
      $('health').textContent = 'up';
      $('health').className = 'badge ok';
      $('refreshed').textContent = new Date().toLocaleTimeString();
    } catch (error) {
      $('health').textContent = error instanceof TypeError ? 'unreachable' : 'error';
      $('health').className = 'badge bad';
    } finally {
      setTimeout(pollViolations, POLL_MS);
    }
  }

  async function writeReport() {
    const headers = {};
    const admin = $('admin-token').value.trim();
    if (admin) headers.Authorization = `Bearer ${admin}`;
    try {
      const response = await fetch('/__mock/report', { method: 'POST', headers });
      if (response.ok) say(`Reports written: ${(await response.json()).files.join(', ')}`, 'ok');
      else say(`Reports refused: ${await describe(response)}`, 'error');
    } catch (error) {
      say(`Reports failed: ${error.message}`, 'error');
    }
  }

  /**
   * In proxy mode (GET /__mock/health says so) the violations panel is shown and polled; the mock's own
   * panels (fixture orders, recorded transfers and samples, sessions) do not apply and are hidden.
   */
  async function detectProxy() {
    try {
      const health = await (await fetch('/__mock/health')).json();
      if (health.mode !== 'proxy') return false;
    } catch {
      return false;
    }
    $('violations-panel').hidden = false;
    for (const id of ['orders-title', 'transfers-title', 'samples-title', 'faults-title']) $(id).parentElement.hidden = true;
    for (const id of ['reset', 'reload-orders']) $(id).hidden = true;
    $('session').parentElement.hidden = true;
    $('write-report').addEventListener('click', () => void writeReport());
    void pollViolations();
    return true;
  }

  // ---- controls -----------------------------------------------------------------------------

  async function reset() {
    const name = session();
    // X-Mock-Reset: the mock refuses a reset without it (no foreign page or form can send it).
    const headers = { ...sessionHeaders(), 'X-Mock-Reset': '1' };
    const admin = $('admin-token').value.trim();
    if (admin) headers.Authorization = `Bearer ${admin}`;
    try {
      const response = await fetch('/__mock/reset', { method: 'POST', headers });
      if (response.status === 204) {
        say(`Session "${name || 'default'}" reset: its transfers and samples are gone.`, 'ok');
        firstPages();
        void poll();
      } else {
        say(`Reset refused: ${await describe(response)}`, 'error');
      }
    } catch (error) {
      say(`Reset failed: ${error.message}`, 'error');
    }
  }

  for (const kind of ['transfers', 'samples']) {
    $(`${kind}-next`).addEventListener('click', () => {
      const state = paging[kind];
      if (state.next === undefined) return;
      state.start += PAGE;
      state.after = state.next;
      void poll();
    });
    $(`${kind}-first`).addEventListener('click', () => {
      paging[kind].after = 0;
      paging[kind].start = 0;
      void poll();
    });
  }

  function firstPages() {
    for (const state of Object.values(paging)) {
      state.after = 0;
      state.start = 0;
    }
  }

  $('reset').addEventListener('click', () => void reset());
  $('reload-orders').addEventListener('click', () => void loadOrders());
  $('session').addEventListener('change', () => {
    const name = session();
    if (name && !SESSION_PATTERN.test(name)) {
      say('A session name is 1 to 64 characters of A-Z, a-z, 0-9, ".", "_" or "-".', 'error');
      return;
    }
    const url = new URL(location.href);
    if (name) url.searchParams.set('session', name);
    else url.searchParams.delete('session');
    history.replaceState(null, '', url);
    say(`Showing session "${name || 'default'}".`, 'ok');
    firstPages();
    void poll();
  });

  // ---- API reference (Swagger UI, served by the mock) -----------------------------------------

  async function reference() {
    const box = $('swagger-ui');
    try {
      if (typeof window.SwaggerUIBundle !== 'function') throw new Error('swagger-ui-bundle.js did not load');
      const response = await fetch('/__mock/openapi.json');
      if (!response.ok) throw new Error(await describe(response));
      const spec = await response.json();
      // "Try it out" calls this mock, wherever it runs.
      spec.servers = [{ url: location.origin, description: 'this mock' }];
      // Swagger UI supports only the default OpenAPI 3.1 dialect and warns about any other
      // jsonSchemaDialect; the contract's schemas render the same without the field.
      delete spec.jsonSchemaDialect;
      window.SwaggerUIBundle({ spec, domNode: box, deepLinking: false, docExpansion: 'list', defaultModelsExpandDepth: 0 });
    } catch (error) {
      box.replaceChildren(el('p', `Cannot show the API reference: ${error.message}`, 'error'));
    }
  }

  void detectProxy().then((proxy) => {
    if (proxy) return;
    void loadOrders();
    void poll();
  });
  void reference();
})();
