import { useState } from 'preact/hooks';
import { type CustomerInfo, get, type Pagination, type SubscriptionItem } from '../api';
import { when } from '../format';
import { href } from '../router';
import { Empty, Show, Table, useLoad } from '../ui';

/** How many of the newest subscriptions the recent customers are read from (the list's largest page). */
export const RECENT_SUBSCRIPTIONS = 100;
/** How many of them are listed at once: typing more of an id narrows the rest down. */
const SHOWN_CUSTOMERS = 20;

interface RecentCustomer {
  user_id: string;
  subscriptions: number;
  /** When the newest of their listed subscriptions was created. */
  latest: string;
}

/** The users of `items` (newest first), each once, in the order of their newest subscription. */
export function recentCustomers(items: readonly SubscriptionItem[]): RecentCustomer[] {
  const byUser = new Map<string, RecentCustomer>();
  for (const item of items) {
    const seen = byUser.get(item.user_id);
    if (seen) seen.subscriptions += 1;
    else byUser.set(item.user_id, { user_id: item.user_id, subscriptions: 1, latest: item.created_at });
  }
  return [...byUser.values()];
}

/**
 * The users of the newest subscriptions, narrowed by a user-id prefix as it is typed. The API finds
 * a customer by exact id only, so the prefix search covers these users, and says so.
 */
function RecentCustomers() {
  const [prefix, setPrefix] = useState('');
  const loaded = useLoad(
    () =>
      get<{ data: SubscriptionItem[]; pagination: Pagination }>('/v1/subscriptions', {
        page: 1,
        limit: RECENT_SUBSCRIPTIONS,
      }),
    [],
  );
  return (
    <Show loaded={loaded} what="recent customers">
      {({ data, pagination }) => {
        const customers = recentCustomers(data);
        if (customers.length === 0) return <Empty>No customers yet: no subscription has been recorded.</Empty>;
        const shown = customers.filter((c) => c.user_id.startsWith(prefix.trim()));
        const scope =
          pagination.total > data.length
            ? `the users of the ${data.length} newest of ${pagination.total} subscriptions`
            : `the users of all ${pagination.total} subscriptions`;
        return (
          <>
            <h2>Recent customers</h2>
            <div class="filters">
              <label for="customer-prefix">User id starts with</label>
              <input
                id="customer-prefix"
                type="search"
                value={prefix}
                onInput={(e) => setPrefix((e.target as HTMLInputElement).value)}
              />
            </div>
            <p class="hint" data-testid="recent-scope">
              Searches {scope}. Look up anyone else by their exact user id above.
            </p>
            {shown.length === 0 ? (
              <Empty>No recent customer’s id starts with “{prefix.trim()}”.</Empty>
            ) : (
              <Table
                testId="recent-customers"
                columns={['User', 'Subscriptions', 'Newest subscription']}
                caption={
                  shown.length > SHOWN_CUSTOMERS
                    ? `The newest ${SHOWN_CUSTOMERS} of ${shown.length}: type more of an id to narrow them down.`
                    : undefined
                }
                rows={shown.slice(0, SHOWN_CUSTOMERS)}
                row={(c) => (
                  <tr key={c.user_id}>
                    <td>
                      <a href={href('customers', c.user_id)}>{c.user_id}</a>
                    </td>
                    <td>{c.subscriptions}</td>
                    <td>{when(c.latest)}</td>
                  </tr>
                )}
              />
            )}
          </>
        );
      }}
    </Show>
  );
}

export function Customers({ userId }: { userId: string | undefined }) {
  const [draft, setDraft] = useState(userId ?? '');
  return (
    <section>
      <h1>Customers</h1>
      <form
        class="filters"
        onSubmit={(event) => {
          event.preventDefault();
          if (draft.trim()) window.location.hash = href('customers', draft.trim());
        }}
      >
        <label for="customer-id">User id</label>
        <input
          id="customer-id"
          type="text"
          value={draft}
          onInput={(e) => setDraft((e.target as HTMLInputElement).value)}
        />
        <button type="submit">Look up</button>
      </form>
      {userId ? (
        <>
          <p>
            <a href={href('customers')}>← Recent customers</a>
          </p>
          <Customer key={userId} userId={userId} />
        </>
      ) : (
        <RecentCustomers />
      )}
    </section>
  );
}

function Customer({ userId }: { userId: string }) {
  const loaded = useLoad(() => get<{ data: CustomerInfo }>(`/v1/customers/${encodeURIComponent(userId)}`), [userId]);
  if (loaded.state === 'failed' && loaded.error.status === 404)
    return <Empty>No customer {userId}: this app has never seen that user.</Empty>;
  return (
    <Show loaded={loaded} what="the customer">
      {({ data }) => {
        const entitlements = Object.entries(data.entitlements);
        return (
          <>
            <h2>{data.user_id}</h2>
            <p>
              First seen {when(data.first_seen_at)}, last seen {when(data.last_seen_at)}
            </p>
            <h3>Entitlements</h3>
            {entitlements.length === 0 ? (
              <Empty>This app defines no entitlements.</Empty>
            ) : (
              <Table
                testId="entitlements"
                columns={['Entitlement', 'Active', 'Product', 'Period', 'Expires', 'Renews']}
                rows={entitlements}
                row={([id, state]) => (
                  <tr key={id}>
                    <td>{id}</td>
                    <td>{state.active ? 'yes' : 'no'}</td>
                    <td>{state.product_id ?? '—'}</td>
                    <td>{state.period_type ?? '—'}</td>
                    <td>{when(state.expires_at)}</td>
                    <td>{state.will_renew ? 'yes' : 'no'}</td>
                  </tr>
                )}
              />
            )}
            <h3>Subscriptions</h3>
            {data.subscriptions.length === 0 ? (
              <Empty>No subscriptions.</Empty>
            ) : (
              <ul>
                {data.subscriptions.map((s) => (
                  <li key={s.id}>
                    <a href={href('subscriptions', s.id)}>{s.id}</a> {s.product_id}, {s.status}, expires{' '}
                    {when(s.expires_at)}
                  </li>
                ))}
              </ul>
            )}
          </>
        );
      }}
    </Show>
  );
}
