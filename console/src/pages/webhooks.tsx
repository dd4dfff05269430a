import { useState } from 'preact/hooks';
import { type AppOverview, type Delivery, type DeliveryPagination, get, post } from '../api';
import { when, withTimes } from '../format';
import { href } from '../router';
import { asApiError, CopyableCommand, Empty, ErrorMessage, Show, Table, useLoad } from '../ui';

interface DeliveryPage {
  data: Delivery[];
  pagination: DeliveryPagination;
}

const STATUSES = ['pending', 'delivered', 'dead', 'endpoint_disabled', 'no_endpoint', 'filtered'];

/** The command that sets the app's endpoint, as an operator runs it beside `npm start`. */
export const WEBHOOKS_SET_COMMAND =
  'npm run --silent admin -- webhooks set --app APP_ID --url https://example.com/webhooks';

/** What failed in the last attempt: its error, or an answer outside 2xx; undefined when it succeeded or none was made. */
export function failureOf(delivery: Delivery): string | undefined {
  if (delivery.last_error) return delivery.last_error;
  const code = delivery.last_status_code;
  return code !== null && (code < 200 || code > 299) ? `HTTP ${code}` : undefined;
}

/** The app's webhook endpoint as GET /v1/app names it: its URL and whether events reach it. */
function EndpointState({ app }: { app: AppOverview }) {
  const endpoint = app.webhook;
  const setCommand = WEBHOOKS_SET_COMMAND.replace('APP_ID', app.app_id);
  if (endpoint === null)
    return (
      <div class="notice" data-testid="endpoint-state">
        <p>
          No webhook endpoint is set: events are recorded but not sent. Set one from a terminal in the project's folder:
        </p>
        <CopyableCommand command={setCommand} />
      </div>
    );
  const receives = endpoint.events === null ? 'every event' : endpoint.events.join(', ');
  return (
    <div class="notice" data-testid="endpoint-state">
      <p>
        Webhook endpoint: <code data-testid="endpoint-url">{endpoint.url}</code> (receives {receives}).
      </p>
      {!endpoint.enabled ? (
        <p>
          It is disabled{endpoint.disabled_reason ? ` (${endpoint.disabled_reason})` : ''}: events are recorded but not
          sent. Set its URL again to enable it.
        </p>
      ) : endpoint.paused_until ? (
        <p>Its last attempts timed out: deliveries wait until {when(endpoint.paused_until)}.</p>
      ) : null}
    </div>
  );
}

export function Webhooks() {
  const [status, setStatus] = useState('');
  /** The cursors of the pages before this one (the first page has none). */
  const [trail, setTrail] = useState<(string | undefined)[]>([]);
  const [cursor, setCursor] = useState<string | undefined>();
  const loaded = useLoad(
    () => get<DeliveryPage>('/v1/webhooks/deliveries', { status, cursor, limit: 20 }),
    [status, cursor],
  );
  const app = useLoad(() => get<{ data: AppOverview }>('/v1/app'), []);
  return (
    <section>
      <h1>Webhooks</h1>
      {app.state === 'done' && <EndpointState app={app.data.data} />}
      <div class="filters">
        <label for="delivery-status">Status</label>
        <select
          id="delivery-status"
          value={status}
          onChange={(event) => {
            setStatus((event.target as HTMLSelectElement).value);
            setTrail([]);
            setCursor(undefined);
          }}
        >
          <option value="">any</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </div>
      <Show loaded={loaded} what="webhook deliveries">
        {({ data, pagination }) =>
          data.length === 0 ? (
            <Empty>{status ? `No delivery is ${status}.` : 'No webhook deliveries yet.'}</Empty>
          ) : (
            <>
              <Table
                testId="deliveries"
                columns={[
                  'Event',
                  'Subscription',
                  'Status',
                  'Attempts',
                  'Last error',
                  'Created',
                  <span key="actions" class="visually-hidden">
                    Actions
                  </span>,
                ]}
                rows={data}
                row={(delivery) => <DeliveryRow key={delivery.event_id} listed={delivery} />}
              />
              <nav class="pager" aria-label="Pages">
                <button
                  type="button"
                  disabled={trail.length === 0}
                  onClick={() => {
                    setCursor(trail.at(-1));
                    setTrail(trail.slice(0, -1));
                  }}
                >
                  Newer
                </button>
                <button
                  type="button"
                  disabled={!pagination.next_cursor}
                  onClick={() => {
                    setTrail([...trail, cursor]);
                    setCursor(pagination.next_cursor ?? undefined);
                  }}
                >
                  Older
                </button>
              </nav>
            </>
          )
        }
      </Show>
    </section>
  );
}

/** One delivery; a redelivery's answer replaces it in place (the list is not read again). */
function DeliveryRow({ listed }: { listed: Delivery }) {
  const [delivery, setDelivery] = useState(listed);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | undefined>();
  const redeliver = async () => {
    setBusy(true);
    setOutcome(undefined);
    try {
      const { data } = await post<{ data: Delivery }>(
        `/v1/webhooks/deliveries/${encodeURIComponent(delivery.event_id)}/redeliver`,
      );
      setDelivery(data);
      setOutcome(
        data.status === 'delivered'
          ? { ok: true, text: 'Delivered.' }
          : {
              ok: false,
              text: `Not delivered yet (${failureOf(data) ?? 'no answer'}); retried at ${when(data.next_attempt_at)}.`,
            },
      );
    } catch (error) {
      setOutcome({ ok: false, text: asApiError(error).message });
    } finally {
      setBusy(false);
    }
  };
  return (
    <tr>
      <td>
        <code>{delivery.event_id}</code>
        <br />
        {delivery.event}
        {delivery.change ? ` (${withTimes(delivery.change)})` : ''}
      </td>
      <td>
        {delivery.subscription_id ? (
          <a href={href('subscriptions', delivery.subscription_id)}>{delivery.subscription_id}</a>
        ) : (
          '—'
        )}
      </td>
      <td>
        <span class={`status status-${delivery.status}`}>{delivery.status}</span>
        {delivery.next_attempt_at ? <div class="hint">next try {when(delivery.next_attempt_at)}</div> : null}
      </td>
      <td>{delivery.attempts}</td>
      <td>{failureOf(delivery) ?? '—'}</td>
      <td>{when(delivery.created_at)}</td>
      <td>
        <button type="button" disabled={busy} onClick={redeliver} aria-label={`Redeliver ${delivery.event_id}`}>
          {busy ? 'Sending…' : 'Redeliver'}
        </button>
        {outcome &&
          (outcome.ok ? (
            <p class="success" role="status">
              {outcome.text}
            </p>
          ) : (
            <ErrorMessage error={asApiError(new Error(outcome.text))} />
          ))}
      </td>
    </tr>
  );
}
