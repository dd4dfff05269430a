import { useState } from 'preact/hooks';
import { type CustomerInfo, get } from '../api';
import { when } from '../format';
import { href } from '../router';
import { Empty, Show, Table, useLoad } from '../ui';

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
        <Customer key={userId} userId={userId} />
      ) : (
        <Empty>Enter a user id to see their access and subscriptions.</Empty>
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
