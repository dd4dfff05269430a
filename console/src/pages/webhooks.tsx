import { useState } from 'preact/hooks';
import { type Delivery, type DeliveryPagination, get, post } from '../api';
import { when } from '../format';
import { href } from '../router';
import { asApiError, Empty, ErrorMessage, Show, Table, useLoad } from '../ui';

interface DeliveryPage {
  data: Delivery[];
  pagination: DeliveryPagination;
}

const STATUSES = ['pending', 'delivered', 'dead', 'endpoint_disabled', 'no_endpoint', 'filtered'];

export function Webhooks() {
  const [status, setStatus] = useState('');
  /** The cursors of the pages before this one (the first page has none). */
  const [trail, setTrail] = useState<(string | undefined)[]>([]);
  const [cursor, setCursor] = useState<string | undefined>();
  const loaded = useLoad(
    () => get<DeliveryPage>('/v1/webhooks/deliveries', { status, cursor, limit: 20 }),
    [status, cursor],
  );
  return (
    <section>
      <h1>Webhooks</h1>
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
              text: `Not delivered yet (${data.last_error ?? `HTTP ${data.last_status_code}`}); retried at ${when(data.next_attempt_at)}.`,
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
        {delivery.change ? ` (${delivery.change})` : ''}
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
      <td>{delivery.last_error ?? (delivery.last_status_code ? `HTTP ${delivery.last_status_code}` : '—')}</td>
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
