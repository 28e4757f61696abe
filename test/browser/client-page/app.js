// A minimal frontend using the package's typed client (served from another origin than the mock).
// Query: ?api=<mock base URL>&session=<X-Mock-Session, optional>.
import { createGoodsClient } from '/client/index.js';

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const api = params.get('api');
const session = params.get('session') ?? undefined;
let lots = [];

function client() {
  return createGoodsClient({ baseUrl: api, token: $('token').value, session });
}

function item(text, attributes = {}) {
  const li = document.createElement('li');
  li.textContent = text;
  for (const [name, value] of Object.entries(attributes)) li.dataset[name] = String(value);
  return li;
}

function showError(result) {
  const problem = result.error;
  $('error').textContent = `${result.status} ${problem.title}: ${problem.detail}`;
}

/** Runs one user action; `body[data-done]` counts finished actions so a test can wait for one. */
function action(id, run) {
  $(id).addEventListener('click', () => {
    $('error').textContent = '';
    run()
      .catch((error) => {
        $('error').textContent = `no answer: ${error.message}`;
      })
      .finally(() => {
        document.body.dataset.done = String(Number(document.body.dataset.done) + 1);
      });
  });
}

action('load-order', async () => {
  const result = await client().getOrderInfo($('order-number').value);
  if (result.error) {
    $('order-title').textContent = '';
    $('lots').replaceChildren();
    lots = [];
    return showError(result);
  }
  const { order } = result.data;
  lots = result.data.lots;
  $('order-title').textContent = `${order.orderNumber} (${order.status})`;
  $('lots').replaceChildren(...lots.map((lot) => item(`${lot.id} ${lot.lotNumber} ${lot.quantity} ${lot.unit}`, { lot: lot.id })));
});

action('create-transfer', async () => {
  const result = await client().createLotTransfer({
    fk_lot_id: lots[0]?.id ?? 0,
    source_scancode: $('source').value,
    target_scancode: $('target').value,
    amount: Number($('amount').value),
  });
  if (result.error) return showError(result);
  const t = result.data;
  $('created').append(
    item(`lot transfer ${t.id}: ${t.amount} of ${t.lotnumber} from ${t.source_scancode} to ${t.target_scancode}`, {
      kind: 'transfer',
      id: t.id,
    }),
  );
});

action('create-sample', async () => {
  const body = { fk_lot_id: lots[0]?.id ?? 0, fk_user_id: Number($('user').value) };
  if ($('notes').value) body.notes = $('notes').value;
  const result = await client().createTestSample(body);
  if (result.error) return showError(result);
  const s = result.data;
  $('created').append(
    item(`test sample ${s.id}: ${s.sample_number} of ${s.lotnumber} by user ${s.fk_user_id}, ${s.status}`, { kind: 'sample', id: s.id }),
  );
});

document.body.dataset.ready = 'true';
