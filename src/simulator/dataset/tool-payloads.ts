// The redacted input and output of a tool call in a transcript, per tool: plausible payloads of
// every JSON shape (objects, arrays, strings, null), and for a failed call an error of any of
// those shapes, as real tool backends return them.

import type { Facts } from './conversation-text.js';
import type { Rng } from '../random.js';

export function toolPayload(slug: string, status: string, f: Facts, rng: Rng): { input: unknown; output: unknown } {
  let input: unknown;
  let output: unknown;
  switch (slug) {
    case 'find_customer':
      input = { phone: f.phoneE164 };
      output = { customer_id: `cus_${rng.hex(6)}`, name: f.name, tier: rng.pick([null, 'gold', 'silver']), emails: [f.email] };
      break;
    case 'lookup_order':
      input = { order_number: f.order };
      output = {
        order_number: f.order,
        status: rng.pick(['processing', 'shipped', 'delivered', 'cancelled']),
        items: Array.from({ length: rng.int(1, 3) }, () => ({ sku: `SKU-${rng.int(100, 999)}`, qty: rng.int(1, 3), title: rng.pick(['Trail Runner 2', 'Wool socks, 3 pack', 'Rain jacket "Nordkap"', 'Mütze']) })),
        total: { amount: rng.int(1000, 30000) / 100, currency: rng.pick(['EUR', 'CHF']) },
        shipping_address: '[REDACTED]',
      };
      break;
    case 'track_shipment':
      input = { tracking_id: rng.chance(0.5) ? f.order : `00340${rng.int(100000000, 999999999)}` };
      output = {
        carrier: rng.pick(['DHL', 'Swiss Post', 'UPS']),
        events: [
          { at: '2024-01-01T08:00:00Z', where: 'Hub Köln' },
          { at: '2024-01-02T06:30:00Z', where: 'Zustellbasis Zürich-Mülligen' },
        ],
        eta: f.day,
      };
      break;
    case 'create_return':
      input = { order_number: f.order, reason: rng.pick(['too small', 'Zu groß / too big', 'damaged, "box was wet"', null]) };
      output = { return_id: `R-${rng.int(1000, 9999)}`, label_url: 'https://returns.example/label/[REDACTED]' };
      break;
    case 'check_availability':
      input = { date: `2024-0${rng.int(1, 9)}-1${rng.int(0, 9)}` };
      output = rng.chance(0.2) ? [] : ['09:30', '11:00', '15:15'].slice(0, rng.int(1, 3));
      break;
    case 'book_appointment':
      input = { slot: '11:00', name: f.name, phone: f.phone };
      output = { appointment_id: `apt_${rng.hex(4)}`, confirmed: true, reminders: { sms: true, email: null } };
      break;
    case 'reschedule_appointment':
      input = { appointment_id: `apt_${rng.hex(4)}`, new_slot: '15:15' };
      output = { ok: true, previous_slot: '09:30' };
      break;
    case 'get_invoice':
      input = { invoice_number: f.invoice };
      output = { amount: rng.int(1000, 50000) / 100, currency: 'EUR', due_date: '2024-02-01', iban: f.iban, paid: rng.chance(0.3) };
      break;
    case 'send_payment_link':
      input = { invoice_number: f.invoice, channel: rng.pick(['sms', 'email']), to: f.email };
      output = 'https://pay.example/l/[REDACTED]';
      break;
    case 'create_ticket':
      input = { subject: `Callback for ${f.name}`, body: `Caller asked for a callback on ${f.phone}.\nTopic: "order ${f.order}", urgent, please.` };
      output = { ticket_id: rng.int(1000, 99999) };
      break;
    default:
      input = {};
      output = null;
  }
  if (status !== 'ok') {
    output = rng.pick<unknown>([
      null,
      { error: status === 'timeout' ? 'timeout after 10s' : 'upstream error' },
      '<html><body><h1>500 Internal Server Error</h1></body></html>',
      { error: { code: status, message: 'Bearer [REDACTED] rejected', retry: status === 'rate_limited' } },
    ]);
  }
  return { input, output };
}
