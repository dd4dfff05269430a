/** An app's webhook endpoint: setting and showing it, listing its deliveries, redelivering an event. */
import { AppError } from '../../lib/core/errors.js';
import { getWebhook, setWebhook, webhookEndpointView } from '../../lib/data/webhooks.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../lib/domain/webhook-deliveries.js';
import { type EventFilter, parseEventFilter } from '../../lib/domain/webhook-filter.js';
import { EVENT_KINDS } from '../../lib/events/schemas.js';
import { listDeliveryPage, redeliver } from '../../lib/services/webhook-delivery.js';
import { webhookUrlRefusal } from '../../lib/services/webhook-targets.js';
import { CliError, type CommandTable } from '../command.js';
import { requireApp, required } from '../options.js';

/** `--events`: the kinds an endpoint receives; absent or `all` is every kind, later ones included. */
function eventFilterOption(values: Record<string, unknown>): EventFilter {
  const list = values.events;
  if (list === undefined) return null;
  const parsed = parseEventFilter(String(list), EVENT_KINDS);
  if (!parsed.ok) throw new CliError(`--events ${parsed.problem}; the kinds are: all, ${EVENT_KINDS.join(', ')}`);
  return parsed.filter;
}

const describeFilter = (events: EventFilter) =>
  events === null ? 'every event kind (kinds added later too)' : events.join(', ');

/** Webhook URLs must be https; plain http only to this machine (local development). */
async function webhookUrl(raw: string, allowPrivate: boolean): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError(`--url ${raw} is not a URL`);
  }
  const local = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && local))
    throw new CliError('--url must be https (http only for localhost)');
  // The deliverer refuses these at every connection too; refused here so the mistake shows now.
  const refusal = await webhookUrlRefusal(url, allowPrivate);
  if (refusal)
    throw new CliError(
      `--url must lead to a public address: ${refusal} (for a receiver on your own machine, add --allow-private-url: npm start delivers there)`,
    );
  return url.toString();
}

export const webhookEndpointCommands: CommandTable = {
  'webhooks set': {
    usage:
      'webhooks set --app A --url U [--events KIND,KIND...|all] [--allow-private-url]   (https, or http on localhost; a public address unless --allow-private-url)',
    options: {
      app: { type: 'string' },
      url: { type: 'string' },
      events: { type: 'string' },
      'allow-private-url': { type: 'boolean', default: false },
    },
    async run(values) {
      const allowPrivate = values['allow-private-url'] === true;
      const url = await webhookUrl(required(values, 'url'), allowPrivate);
      const events = eventFilterOption(values);
      const appId = await requireApp(values);
      const endpoint = await setWebhook(appId, url, events);
      return {
        json: { app_id: appId, url, events, secret: endpoint.secret },
        text: [
          `Webhook endpoint of ${appId}: ${url}`,
          `Receives: ${describeFilter(events)}`,
          `Signing secret (Standard Webhooks; shown only now): ${endpoint.secret}`,
          ...(allowPrivate
            ? [
                '--allow-private-url: delivered only where WEBHOOK_ALLOW_PRIVATE_TARGETS=1 (npm start sets it; AWS never).',
              ]
            : []),
        ].join('\n'),
      };
    },
  },
  'webhooks show': {
    usage: 'webhooks show --app A',
    options: { app: { type: 'string' } },
    async run(values) {
      const appId = await requireApp(values);
      const endpoint = await getWebhook(appId);
      if (!endpoint)
        throw new CliError(
          `app ${appId} has no webhook endpoint (\`webhooks set --app ${appId} --url U\`)`,
          'NOT_FOUND',
        );
      // Never the secret: it is shown once, by `webhooks set`.
      const view = webhookEndpointView(endpoint, new Date());
      const { url, enabled, disabled_reason, events, updated_at, paused_until } = view;
      return {
        json: { app_id: appId, ...view },
        text: [
          `Webhook endpoint of ${appId}: ${url}`,
          enabled
            ? 'Enabled.'
            : `Disabled: ${disabled_reason ?? 'no reason recorded'} (\`webhooks set\` enables it again).`,
          ...(paused_until
            ? [
                `Paused until ${paused_until}: its last ${endpoint.breaker.consecutive_timeouts} attempts timed out (its deliveries wait for the pause to end).`,
              ]
            : []),
          `Receives: ${describeFilter(events)}`,
          `Set ${updated_at}.`,
        ].join('\n'),
      };
    },
  },
  'webhooks deliveries': {
    usage: `webhooks deliveries --app A [--limit 50] [--status ${DELIVERY_STATUSES.join('|')}]`,
    options: { app: { type: 'string' }, limit: { type: 'string', default: '50' }, status: { type: 'string' } },
    async run(values) {
      const appId = await requireApp(values);
      const limit = Number(values.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new CliError('--limit must be 1..1000');
      const status = values.status as DeliveryStatus | undefined;
      if (status !== undefined && !DELIVERY_STATUSES.includes(status))
        throw new CliError(`--status must be one of ${DELIVERY_STATUSES.join(', ')}`);
      const { data: deliveries } = await listDeliveryPage(appId, { limit, status });
      return {
        json: { app_id: appId, deliveries },
        text:
          deliveries.length === 0
            ? `No deliveries for ${appId}.`
            : deliveries
                .map(
                  (d) =>
                    `${d.event_id}  ${d.status.padEnd(17)} attempts ${String(d.attempts).padStart(2)}  ${d.change.padEnd(28)} ${d.next_attempt_at ? `next ${d.next_attempt_at}` : ''}${d.last_error ? `  (${d.last_error})` : d.last_status_code ? `  (HTTP ${d.last_status_code})` : ''}`,
                )
                .join('\n'),
      };
    },
  },
};

/** Apart from the endpoint's commands: the help text lists redeliver last, after the maintenance ones. */
export const redeliveryCommands: CommandTable = {
  'webhooks redeliver': {
    usage: 'webhooks redeliver --event ID',
    options: { event: { type: 'string' } },
    async run(values) {
      const eventId = required(values, 'event');
      const delivery = await redeliver(eventId).catch((error: unknown) => {
        if (error instanceof AppError && error.kind === 'EVENT_OF_ERASED_USER')
          throw new CliError(`event ${eventId} names a user who has been erased: it is not sent again`, error.kind);
        throw error;
      });
      if (!delivery) throw new CliError(`no delivery of event ${eventId}`, 'NOT_FOUND');
      const last = delivery.attempt_log.at(-1);
      return {
        json: {
          event_id: eventId,
          status: delivery.status,
          attempts: delivery.attempts,
          next_attempt_at: delivery.next_attempt_at,
          last_status_code: last?.status_code ?? null,
          last_error: last?.error ?? null,
        },
        text: `Event ${eventId}: ${delivery.status} after ${delivery.attempts} attempt(s)${last?.status_code ? ` (HTTP ${last.status_code})` : last?.error ? ` (${last.error})` : ''}`,
      };
    },
  },
};
