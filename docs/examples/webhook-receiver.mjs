// Receives the service's webhooks, checks their Standard Webhooks signature, deduplicates them on
// webhook-id and prints each event once.
// WEBHOOK_SECRET=whsec_... node docs/examples/webhook-receiver.mjs   (port 4000, or WEBHOOK_RECEIVER_PORT)
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

if (!process.env.WEBHOOK_SECRET?.startsWith('whsec_'))
  throw new Error('set WEBHOOK_SECRET to the secret `webhooks set` printed');
const key = Buffer.from(process.env.WEBHOOK_SECRET.slice('whsec_'.length), 'base64');
const port = Number(process.env.WEBHOOK_RECEIVER_PORT || 4000);

// Ids of the events already acted on. Every retry and every redelivery of an event carries the same
// webhook-id (days apart, with a fresh timestamp and signature), so a receiver must remember the ids
// it handled. Here in memory, the newest 100,000; a real receiver records the id in its own database,
// in the same transaction as what the event changes (a unique key on the id).
const MAX_REMEMBERED = 100_000;
const handled = new Set();

createServer(async (req, res) => {
  let body = '';
  for await (const chunk of req) body += chunk;
  const id = req.headers['webhook-id'];
  const timestamp = req.headers['webhook-timestamp'];
  // The signature is over "id.timestamp.body"; the header may list several ("v1,<base64>" each).
  const expected = Buffer.from(`v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`);
  const signed = String(req.headers['webhook-signature'] ?? '')
    .split(' ')
    .map((s) => Buffer.from(s))
    .some((s) => s.length === expected.length && timingSafeEqual(s, expected));
  // A recent timestamp keeps a captured webhook from being replayed later.
  const recent = Math.abs(Date.now() / 1000 - Number(timestamp)) <= 300;
  if (!signed || !recent) {
    console.log(`refused a webhook: ${signed ? 'timestamp too far from now' : 'signature does not verify'}`);
    return res.writeHead(400).end();
  }
  // Checked after the signature, so an unsigned request cannot mark an id as handled.
  if (handled.has(id)) {
    console.log(`webhook ${id} already handled: ignored`);
    return res.writeHead(204).end(); // a 2xx, or it is retried again
  }
  const event = JSON.parse(body);
  console.log(`webhook ${id} (signature verified): ${event.event} ${JSON.stringify(event.data)}`);
  // Remembered once acted on: an event whose handling failed is handled again when it is retried.
  handled.add(id);
  if (handled.size > MAX_REMEMBERED) handled.delete(handled.values().next().value);
  res.writeHead(204).end(); // only a 2xx counts as delivered; anything else is retried
}).listen(port, '127.0.0.1', () => console.log(`webhook receiver on http://127.0.0.1:${port}/`));
