import { useEffect, useState } from 'preact/hooks';
import { type CustomerInfo, type CustomerList, get, type Pagination, type SubscriptionItem } from '../api';
import { when } from '../format';
import { href } from '../router';
import { Empty, Show, Table, useLoad } from '../ui';

/** How many of the newest subscriptions the recent customers are read from (the list's largest page). */
export const RECENT_SUBSCRIPTIONS = 100;
/** How many customers are listed at once. */
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

/** The users of the newest subscriptions, newest first: who bought lately, before anything is typed. */
function RecentCustomers() {
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
        const scope =
          pagination.total > data.length
            ? `the users of the ${data.length} newest of ${pagination.total} subscriptions`
            : `the users of all ${pagination.total} subscriptions`;
        return (
          <>
            <h2>Recent customers</h2>
            <p class="hint" data-testid="recent-scope">
              Lists {scope}. Type the start of a user id above to find any customer.
            </p>
            <Table
              testId="recent-customers"
              columns={['User', 'Subscriptions', 'Newest subscription']}
              caption={
                customers.length > SHOWN_CUSTOMERS
                  ? `The newest ${SHOWN_CUSTOMERS} of ${customers.length}: type the start of an id to find the others.`
                  : undefined
              }
              rows={customers.slice(0, SHOWN_CUSTOMERS)}
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
          </>
        );
      }}
    </Show>
  );
}

/** Every customer whose id starts with `prefix` (GET /v1/customers), a page at a time. */
function CustomerSearch({ prefix }: { prefix: string }) {
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const loaded = useLoad(
    () =>
      get<CustomerList>('/v1/customers', {
        prefix,
        limit: SHOWN_CUSTOMERS,
        cursor,
      }),
    [prefix, cursor],
  );
  return (
    <Show loaded={loaded} what="customers">
      {({ data, pagination }) => (
        <>
          <h2>Customers whose id starts with “{prefix}”</h2>
          {data.length === 0 ? (
            <Empty>No customer’s id starts with “{prefix}”.</Empty>
          ) : (
            <Table
              testId="customer-search"
              columns={['User']}
              rows={data}
              row={(c) => (
                <tr key={c.user_id}>
                  <td>
                    <a href={href('customers', c.user_id)}>{c.user_id}</a>
                  </td>
                </tr>
              )}
            />
          )}
          <nav class="pager" aria-label="Pages">
            {cursors.length > 0 && (
              <button type="button" onClick={() => setCursors(cursors.slice(0, -1))}>
                Previous
              </button>
            )}
            {pagination.next_cursor && (
              <button type="button" onClick={() => setCursors([...cursors, pagination.next_cursor!])}>
                Next
              </button>
            )}
          </nav>
        </>
      )}
    </Show>
  );
}

/** A value that follows `value` once it has stopped changing for `ms`: one search per pause in typing. */
function useSettled(value: string, ms: number): string {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

function FindCustomers() {
  const [prefix, setPrefix] = useState('');
  const typed = useSettled(prefix.trim(), 250);
  return (
    <>
      <div class="filters">
        <label for="customer-prefix">User id starts with</label>
        <input
          id="customer-prefix"
          type="search"
          value={prefix}
          onInput={(e) => setPrefix((e.target as HTMLInputElement).value)}
        />
      </div>
      {typed ? <CustomerSearch key={typed} prefix={typed} /> : <RecentCustomers />}
    </>
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
        <FindCustomers />
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
