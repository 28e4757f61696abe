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
        `customer ${order.customerId} · ordered ${order.orderDate} · delivery ${order.deliveryDate} · ${info.containers.length} containers · ${info.charges.length} charges`,
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

  function renderRecords(kind, records) {
    const text = JSON.stringify(records);
    if (text === shown[kind]) return;
    shown[kind] = text;
    const rows = records.map((record) => {
      const row = el('tr');
      row.dataset.id = record.id;
      for (const value of COLUMNS[kind](record)) row.append(el('td', value));
      return row;
    });
    $(kind).tBodies[0].replaceChildren(...rows);
    $(`${kind}-count`).textContent = `(${records.length})`;
    $(`${kind}-empty`).hidden = records.length > 0;
  }

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
      const [transfers, samples] = await Promise.all([
        fetch('/__mock/lot-transfers', { headers }),
        fetch('/__mock/test-samples', { headers }),
      ]);
      if (!transfers.ok) throw new Error(await describe(transfers));
      if (!samples.ok) throw new Error(await describe(samples));
      renderRecords('transfers', await transfers.json());
      renderRecords('samples', await samples.json());
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
        void poll();
      } else {
        say(`Reset refused: ${await describe(response)}`, 'error');
      }
    } catch (error) {
      say(`Reset failed: ${error.message}`, 'error');
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

  void loadOrders();
  void poll();
  void reference();
})();
