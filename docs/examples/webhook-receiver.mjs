// Receives the service's webhooks, checks their Standard Webhooks signature and prints each event.
// WEBHOOK_SECRET=whsec_... node docs/examples/webhook-receiver.mjs   (port 4000, or WEBHOOK_RECEIVER_PORT)
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

if (!process.env.WEBHOOK_SECRET?.startsWith('whsec_'))
  throw new Error('set WEBHOOK_SECRET to the secret `webhooks set` printed');
const key = Buffer.from(process.env.WEBHOOK_SECRET.slice('whsec_'.length), 'base64');
const port = Number(process.env.WEBHOOK_RECEIVER_PORT || 4000);

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
  const event = JSON.parse(body);
  console.log(`webhook ${id} (signature verified): ${event.event} ${JSON.stringify(event.data)}`);
  res.writeHead(204).end(); // only a 2xx counts as delivered; anything else is retried
}).listen(port, '127.0.0.1', () => console.log(`webhook receiver on http://127.0.0.1:${port}/`));
