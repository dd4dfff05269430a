import { useState } from 'preact/hooks';
import { get, type HistoryEntry, type HistoryPagination, type SubscriptionDetail } from '../api';
import { money, shownValue, when } from '../format';
import { href } from '../router';
import { asApiError, Empty, ErrorMessage, Show, useLoad } from '../ui';

interface HistoryPage {
  data: HistoryEntry[];
  pagination: HistoryPagination;
}

const CAUSES: Record<string, string> = {
  api: 'API call',
  verification: 'Purchase verified',
  store_notification: 'Store notification',
  sweeper: 'Sweeper (the clock)',
  unknown: 'Unknown cause',
};

export function Subscription({ id }: { id: string }) {
  const loaded = useLoad(() => get<{ data: SubscriptionDetail }>(`/v1/subscriptions/${encodeURIComponent(id)}`), [id]);
  return (
    <section>
      <p>
        <a href={href('subscriptions')}>← Subscriptions</a>
      </p>
      <h1>Subscription {id}</h1>
      <Show loaded={loaded} what="the subscription">
        {({ data }) => (
          <dl class="detail" data-testid="subscription-detail">
            <dt>Status</dt>
            <dd>
              <span class={`status status-${data.status}`}>{data.status}</span>
            </dd>
            <dt>User</dt>
            <dd>
              <a href={href('customers', data.user_id)}>{data.user_id}</a>
            </dd>
            <dt>Product</dt>
            <dd>
              {data.product_id}
              {data.product_info?.name ? ` (${data.product_info.name})` : ''}
            </dd>
            <dt>Platform</dt>
            <dd>{data.platform}</dd>
            <dt>Price</dt>
            <dd>{money(data.price, data.currency)}</dd>
            <dt>Started</dt>
            <dd>{when(data.started_at)}</dd>
            <dt>Expires</dt>
            <dd>{when(data.expires_at)}</dd>
            <dt>Auto-renew</dt>
            <dd>{data.auto_renew ? 'on' : 'off'}</dd>
            <dt>Trial</dt>
            <dd>{data.trial_period ? `yes, until ${when(data.trial_expires_at)}` : 'no'}</dd>
            <dt>Updated</dt>
            <dd>{when(data.updated_at)}</dd>
          </dl>
        )}
      </Show>
      <h2>History</h2>
      <History id={id} />
    </section>
  );
}

/** The subscription's changes, newest first, as a timeline; older ones a page at a time. */
function History({ id }: { id: string }) {
  const path = `/v1/subscriptions/${encodeURIComponent(id)}/history`;
  const first = useLoad(() => get<HistoryPage>(path, { limit: 20 }), [id]);
  const [older, setOlder] = useState<HistoryEntry[]>([]);
  const [cursor, setCursor] = useState<string | null | undefined>(undefined);
  const [failure, setFailure] = useState<ReturnType<typeof asApiError> | undefined>();
  return (
    <Show loaded={first} what="the history">
      {(page) => {
        const entries = [...page.data, ...older];
        const next = cursor === undefined ? page.pagination.next_cursor : cursor;
        if (entries.length === 0) return <Empty>No change recorded yet (changes show within a second or so).</Empty>;
        return (
          <>
            <ol class="timeline" data-testid="history">
              {entries.map((entry) => (
                <li key={entry.version}>
                  <time dateTime={entry.at}>{when(entry.at)}</time>
                  <strong>{CAUSES[entry.cause] ?? entry.cause}</strong>
                  {entry.action ? ` — ${entry.action}` : ''}
                  {entry.notification_type ? ` (${entry.notification_type})` : ''}
                  {entry.changes.length > 0 && (
                    <ul>
                      {entry.changes.map((change) => (
                        <li key={change.field}>
                          {change.field}: {shownValue(change.from)} → {shownValue(change.to)}
                        </li>
                      ))}
                    </ul>
                  )}
                </li>
              ))}
            </ol>
            {failure && <ErrorMessage error={failure} />}
            {next && (
              <button
                type="button"
                onClick={async () => {
                  try {
                    const more = await get<HistoryPage>(path, { limit: 20, cursor: next });
                    setOlder([...older, ...more.data]);
                    setCursor(more.pagination.next_cursor);
                    setFailure(undefined);
                  } catch (error) {
                    setFailure(asApiError(error));
                  }
                }}
              >
                Older changes
              </button>
            )}
          </>
        );
      }}
    </Show>
  );
}
