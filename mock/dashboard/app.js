// The mock's dashboard (served at /__mock/): plain browser JavaScript, no build step.
// Data comes from the mock's /__mock JSON endpoints and the API itself; every value is written
// with textContent, never as HTML (recorded objects are whatever clients sent). What it shows of the
// API (the order read's path, the members of orders, lots and records, the listings) comes from the
// operations model the mock serves at /__mock/model: no path or member name of the API is typed here.
'use strict';

(function dashboard() {
  const POLL_MS = 1000;
  const MODEL_PATH = '/__mock/model';
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

  // ---- the API token: from the link the mock printed (#token=...), kept for this tab ----------
  // The start banner of `goods-mock --token T` prints the dashboard's address with T in the fragment,
  // which a browser never sends: the page takes it from there, keeps it in sessionStorage (a reload or
  // a link followed in this tab keeps it; nothing is written for other tabs) and takes it out of the
  // address bar, so it is not copied or bookmarked with the address.
  const TOKEN_KEY = 'goods-mock.api-token';
  const DEFAULT_TOKEN = 'dashboard';

  function keepToken(token) {
    try {
      if (token) sessionStorage.setItem(TOKEN_KEY, token);
      else sessionStorage.removeItem(TOKEN_KEY);
    } catch {
      // storage turned off: the field still holds the token until the page is left
    }
  }

  function keptToken() {
    try {
      return sessionStorage.getItem(TOKEN_KEY);
    } catch {
      return null;
    }
  }

  (function adoptToken() {
    const fragment = new URLSearchParams(location.hash.slice(1));
    const given = fragment.get('token');
    if (given !== null) {
      fragment.delete('token');
      const rest = fragment.toString();
      history.replaceState(history.state, '', `${location.pathname}${location.search}${rest ? `#${rest}` : ''}`);
      if (given) keepToken(given);
    }
    $('api-token').value = keptToken() || DEFAULT_TOKEN;
  })();

  /** What GET /__mock/health said (how the mock checks tokens: `auth.tokens`), once read. */
  let health;

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

  /** A value of a record or an order as text: yes/no for a boolean, JSON for an object or a list. */
  function shownValue(value) {
    if (value === undefined || value === null) return '';
    if (typeof value === 'boolean') return value ? 'yes' : 'no';
    if (typeof value === 'object') return JSON.stringify(value);
    return String(value);
  }

  /** A table with a column per member (its name as the header); `rowOf(item, row)` may mark each row. */
  function membersTable(members, items, rowOf, id, className) {
    const table = el('table', undefined, className);
    if (id) table.id = id;
    const head = el('tr');
    for (const member of members) {
      const th = el('th', member.name);
      th.dataset.member = member.name;
      head.append(th);
    }
    table.append(el('thead'), el('tbody'));
    table.tHead.append(head);
    for (const item of items) table.tBodies[0].append(memberRow(members, item, rowOf));
    return table;
  }

  function memberRow(members, item, rowOf) {
    const row = el('tr');
    if (rowOf) rowOf(item, row);
    for (const member of members) row.append(valueCell(shownValue(item[member.name])));
    return row;
  }

  /** Most characters of a value its cell's tooltip shows (a record may hold a 100,000-character string). */
  const TITLE_MAX = 2000;

  /**
   * A table cell showing a value on one line, cut with an ellipsis past the column's most width (the
   * CSS of `td > .value`); a value that is cut gets the whole of it as its tooltip (`fitTable`).
   */
  function valueCell(text) {
    const cell = el('td');
    cell.append(el('span', text, 'value'));
    return cell;
  }

  /** The tooltip of a cut value: all of it, or its first TITLE_MAX characters and its length. */
  function tooltip(text) {
    return text.length > TITLE_MAX ? `${text.slice(0, TITLE_MAX)}… (${text.length.toLocaleString('en-US')} characters)` : text;
  }

  /**
   * Fits a table of values to the width it has: when its columns need more, the widest are narrowed
   * to one width (the values in them cut with an ellipsis) so that the rest keep theirs; a table that
   * fits is left as it is. Runs after a table's rows change, and when the window is resized.
   */
  function fitTable(table) {
    if (!table.isConnected) return;
    table.style.removeProperty('--value-max');
    const box = table.parentElement;
    const boxStyle = window.getComputedStyle(box);
    const available = box.clientWidth - parseFloat(boxStyle.paddingLeft) - parseFloat(boxStyle.paddingRight);
    const heads = [...table.tHead.rows[0].cells];
    if (table.offsetWidth > available && heads.length > 0) narrow(table, heads, available);
    for (const value of table.querySelectorAll('td > .value')) {
      if (value.scrollWidth > value.clientWidth) value.title = tooltip(value.textContent);
      else value.removeAttribute('title');
    }
  }

  function narrow(table, heads, available) {
    // Water-filling: the one width `cap` that the widest columns get so that all columns together fit.
    const widths = heads.map((th) => th.offsetWidth).sort((a, b) => b - a);
    let rest = widths.reduce((a, b) => a + b, 0);
    let cap = 0;
    for (let k = 1; k <= widths.length; k++) {
      rest -= widths[k - 1];
      cap = (available - rest) / k;
      if (k === widths.length || cap >= widths[k]) break;
    }
    const cell = table.tBodies[0].rows[0] && table.tBodies[0].rows[0].cells[0];
    const padding = cell ? cell.offsetWidth - cell.firstChild.offsetWidth : 0;
    table.style.setProperty('--value-max', `${Math.max(24, Math.floor(cap - padding))}px`);
  }

  function fitTables() {
    for (const table of document.querySelectorAll('main table')) if (table.querySelector('td > .value')) fitTable(table);
  }

  let fitting = false;
  window.addEventListener('resize', () => {
    if (fitting) return;
    fitting = true;
    window.requestAnimationFrame(() => {
      fitting = false;
      fitTables();
    });
  });

  // ---- the operations model (GET /__mock/model), read once ------------------------------------

  /** The order read and the creates of the model; `failed` holds why the model could not be read. */
  const model = { orderRead: undefined, creates: [], failed: undefined };

  async function loadModel() {
    try {
      const response = await fetch(MODEL_PATH);
      if (!response.ok) throw new Error(await describe(response));
      const view = await response.json();
      if (!view || !Array.isArray(view.operations)) throw new Error('the answer is not an operations model');
      model.orderRead = view.operations.find((op) => op.role === 'order-read');
      model.creates = view.operations.filter((op) => op.role === 'create' && op.listing);
    } catch (error) {
      model.failed = error.message;
      const text = `Cannot load the operations model (${MODEL_PATH}): ${error.message}. Orders and records cannot be shown; reload the page when the mock is back.`;
      say(text, 'error');
      $('orders').replaceChildren(el('p', text, 'error'));
    }
  }

  /** A resource name as a title: `lot-transfers` → `Lot transfers`. */
  function titleOf(resource) {
    const words = resource.replace(/[-_]+/g, ' ');
    return words.charAt(0).toUpperCase() + words.slice(1);
  }

  // ---- fixture orders with their lists ------------------------------------------------------

  /** The order read's path for one order number. */
  function orderPath(number) {
    return model.orderRead.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(number));
  }

  async function loadOrders() {
    const box = $('orders');
    if (!model.orderRead) {
      if (!model.failed) box.replaceChildren(el('p', 'The contract has no order read.', 'empty'));
      return;
    }
    box.replaceChildren(el('p', 'Loading…', 'empty'));
    try {
      const listed = await fetch('/__mock/orders');
      if (!listed.ok) throw new Error(await describe(listed));
      const numbers = await listed.json();
      $('orders-count').textContent = `(${numbers.length})`;
      const token = $('api-token').value.trim() || DEFAULT_TOKEN;
      let refused = false;
      const cards = await Promise.all(
        numbers.map(async (number) => {
          const response = await fetch(orderPath(number), { headers: { Authorization: `Bearer ${token}` } });
          if (response.status === 401) refused = true;
          if (!response.ok) return orderError(number, await describe(response));
          return orderCard(await response.json());
        }),
      );
      box.replaceChildren(...cards);
      for (const table of box.querySelectorAll('table')) fitTable(table);
      if (refused) say(tokenRefused(token), 'error');
    } catch (error) {
      box.replaceChildren(el('p', `Cannot load the orders: ${error.message}`, 'error'));
    }
  }

  function orderError(number, text) {
    const card = el('article', undefined, 'order');
    card.dataset.order = number;
    card.append(el('h3', number), el('p', `Cannot load this order (${text}).`, 'error'));
    return card;
  }

  /** Why the mock refused the API token, from how it was started (GET /__mock/health says it, never a token). */
  function tokenRefused(token) {
    const tokens = health && health.auth ? health.auth.tokens : undefined;
    if (tokens === 'listed')
      return (
        `The mock was started with --token and accepts only the tokens given there; "${token}" is not one. ` +
        'Open the dashboard link it printed when it started (…/__mock/#token=…), or enter one of those tokens in "API token".'
      );
    if (tokens === 'any')
      return `The mock refuses the token "${token}" (a --reject-token; "invalid" is refused by default): enter any other token in "API token".`;
    return `The mock refuses the token "${token}": enter a token it accepts in "API token" (see the mock's --token).`;
  }

  /** `1 container`, `3 charges`: a list's length with its name, singular for one. */
  function listCount(n, name) {
    return count(n, name.endsWith('s') ? name.slice(0, -1) : name, name);
  }

  function orderCard(answer) {
    const shape = model.orderRead.order;
    const info = answer || {};
    const header = info[shape.headerMember] || {};
    const card = el('article', undefined, 'order');
    card.dataset.order = header[shape.numberMember];
    const facts = shape.headerMembers
      .filter((member) => member.name !== shape.numberMember)
      .map((member) => `${member.name} ${shownValue(header[member.name])}`);
    const lists = shape.lists.map((list) => ({ list, items: Array.isArray(info[list.member]) ? info[list.member] : [] }));
    for (const { list, items } of lists) facts.push(listCount(items.length, list.member));
    card.append(el('h3', header[shape.numberMember]), el('p', facts.join(' · '), 'meta'));
    for (const { list, items } of lists) {
      // A list the model knows no members of (an open object) is only counted.
      if (list.members.length === 0 || items.length === 0) continue;
      const lots = list.member === shape.lotsMember;
      const table = membersTable(
        list.members,
        items,
        (item, row) => {
          if (lots) row.dataset.lot = item[shape.lotIdMember];
        },
        undefined,
        'list',
      );
      table.dataset.list = list.member;
      card.append(el('h4', `${list.member} (${items.length})`), table);
    }
    return card;
  }

  // ---- recorded records of each create, polled ---------------------------------------------

  // The listings page: the dashboard shows PAGE records at a time, from `after` on, and
  // follows the listing's `Link: rel="next"` header, so no session size breaks it.
  const PAGE = 200;
  /** Per resource of a create: its operation, what is shown, and its page. */
  const records = new Map();

  /** A section per create of the model (title, a table with a column per member, pager), before the faults panel. */
  function buildRecordSections() {
    for (const op of model.creates) {
      const id = `records-${op.resource}`;
      const title = titleOf(op.resource);
      const section = el('section', undefined, 'records');
      section.dataset.resource = op.resource;
      section.setAttribute('aria-labelledby', `${id}-title`);
      const heading = el('h2', `${title} `);
      heading.id = `${id}-title`;
      const counter = el('span', undefined, 'count');
      counter.id = `${id}-count`;
      heading.append(counter);
      const empty = el('p', `No ${title.toLowerCase()} recorded in this session.`, 'empty');
      empty.id = `${id}-empty`;
      const pager = el('p', undefined, 'pager');
      pager.id = `${id}-pager`;
      pager.hidden = true;
      const first = el('button', 'First page');
      first.type = 'button';
      first.id = `${id}-first`;
      const next = el('button', 'Next page');
      next.type = 'button';
      next.id = `${id}-next`;
      pager.append(first, next);
      section.append(heading, membersTable(op.members, [], undefined, id), empty, pager);
      $('faults-panel').before(section);
      const state = { op, id, title, shown: '', after: 0, next: undefined, start: 0 };
      records.set(op.resource, state);
      next.addEventListener('click', () => {
        if (state.next === undefined) return;
        state.start += PAGE;
        state.after = state.next;
        void poll();
      });
      first.addEventListener('click', () => {
        state.after = 0;
        state.start = 0;
        void poll();
      });
    }
  }

  /** The `after` of a listing's rel="next" link, or undefined on the last page. */
  function nextAfter(response) {
    const link = response.headers.get('link') || '';
    const match = /<([^>]+)>;\s*rel="next"/.exec(link);
    if (!match) return undefined;
    const after = new URL(match[1], location.origin).searchParams.get('after');
    return after === null ? undefined : Number(after);
  }

  function fetchPage(state, headers) {
    return fetch(`${state.op.listing}?limit=${PAGE}&after=${state.after}`, { headers });
  }

  function renderRecords(state, listed, next) {
    const id = state.id;
    state.next = next;
    $(`${id}-pager`).hidden = next === undefined && state.after === 0;
    $(`${id}-next`).disabled = next === undefined;
    $(`${id}-first`).disabled = state.after === 0;
    const text = JSON.stringify([state.after, next, listed]);
    if (text === state.shown) return;
    state.shown = text;
    const idMember = state.op.record && state.op.record.idMember;
    const rows = listed.map((record, i) =>
      memberRow(state.op.members, record, (item, row) => {
        row.dataset.id = idMember ? item[idMember] : state.start + i + 1;
      }),
    );
    $(id).tBodies[0].replaceChildren(...rows);
    fitTable($(id));
    const paged = next !== undefined || state.after > 0;
    $(`${id}-count`).textContent = paged
      ? `(${state.start + 1}–${state.start + listed.length}${next !== undefined ? ', more' : ''})`
      : `(${listed.length})`;
    $(`${id}-empty`).hidden = listed.length > 0 || state.after > 0;
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
      const states = [...records.values()];
      const [faults, ...pages] = await Promise.all([
        fetch('/__mock/faults', { headers }),
        ...states.map((state) => fetchPage(state, headers)),
      ]);
      for (const page of pages) if (!page.ok) throw new Error(await describe(page));
      if (!faults.ok) throw new Error(await describe(faults));
      for (const [i, page] of pages.entries()) renderRecords(states[i], await page.json(), nextAfter(page));
      renderFaults(await faults.json());
      $('health').textContent = 'up';
      $('health').className = 'badge ok';
      $('refreshed').textContent = new Date().toLocaleTimeString();
      if (refreshFailed && !model.failed) say('');
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
      health = await (await fetch('/__mock/health')).json();
      if (health.mode !== 'proxy') return false;
    } catch {
      return false;
    }
    $('violations-panel').hidden = false;
    for (const id of ['orders-title', 'faults-title']) $(id).parentElement.hidden = true;
    for (const section of document.querySelectorAll('section.records')) section.hidden = true;
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
        const kinds = [...records.values()].map((state) => state.title.toLowerCase());
        say(`Session "${name || 'default'}" reset: ${kinds.length > 0 ? `its ${kinds.join(' and ')} are gone` : 'done'}.`, 'ok');
        firstPages();
        void poll();
      } else {
        say(`Reset refused: ${await describe(response)}`, 'error');
      }
    } catch (error) {
      say(`Reset failed: ${error.message}`, 'error');
    }
  }

  function firstPages() {
    for (const state of records.values()) {
      state.after = 0;
      state.start = 0;
    }
  }

  $('reset').addEventListener('click', () => void reset());
  $('reload-orders').addEventListener('click', () => void loadOrders());
  $('api-token').addEventListener('change', () => {
    keepToken($('api-token').value.trim());
    say('');
    void loadOrders();
  });
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

  void detectProxy().then(async (proxy) => {
    if (proxy) return;
    await loadModel();
    buildRecordSections();
    void loadOrders();
    void poll();
  });
  void reference();
})();
