import { useState } from 'preact/hooks';
import { get, type Pagination, PLATFORMS, SUBSCRIPTION_STATUSES, type SubscriptionItem } from '../api';
import { money, when } from '../format';
import { href } from '../router';
import { Empty, Pager, Show, Table, useLoad } from '../ui';

/** The spec's list filters (GET /v1/subscriptions). */
interface Filters {
  user_id: string;
  status: string;
  product_id: string;
  platform: string;
}
const NO_FILTERS: Filters = { user_id: '', status: '', product_id: '', platform: '' };
const PAGE_SIZE = 20;

export function Subscriptions() {
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [page, setPage] = useState(1);
  const loaded = useLoad(
    () =>
      get<{ data: SubscriptionItem[]; pagination: Pagination }>('/v1/subscriptions', {
        ...filters,
        page,
        limit: PAGE_SIZE,
      }),
    [filters, page],
  );
  const field = (name: keyof Filters) => ({
    id: `filter-${name}`,
    value: draft[name],
    onInput: (event: Event) => setDraft({ ...draft, [name]: (event.target as HTMLInputElement).value }),
  });
  return (
    <section>
      <h1>Subscriptions</h1>
      <form
        class="filters"
        onSubmit={(event) => {
          event.preventDefault();
          setPage(1);
          setFilters({ ...draft });
        }}
      >
        <label for="filter-user_id">User</label>
        <input type="text" {...field('user_id')} />
        <label for="filter-status">Status</label>
        <Choice {...field('status')} values={SUBSCRIPTION_STATUSES} />
        <label for="filter-product_id">Product</label>
        <input type="text" {...field('product_id')} />
        <label for="filter-platform">Platform</label>
        <Choice {...field('platform')} values={PLATFORMS} />
        <button type="submit">Filter</button>
      </form>
      <Show loaded={loaded} what="subscriptions">
        {({ data, pagination }) =>
          data.length === 0 ? (
            <Empty>
              {Object.values(filters).every((value) => value === '')
                ? 'No subscriptions yet. They show here once the app verifies a purchase (POST /v1/subscriptions/verify) or creates one (POST /v1/subscriptions).'
                : 'No subscription matches these filters.'}
            </Empty>
          ) : (
            <>
              <Table
                testId="subscriptions"
                columns={['Subscription', 'User', 'Product', 'Platform', 'Status', 'Price', 'Expires']}
                rows={data}
                row={(item) => (
                  <tr key={item.id}>
                    <td>
                      <a href={href('subscriptions', item.id)}>{item.id}</a>
                    </td>
                    <td>{item.user_id}</td>
                    <td>{item.product_id}</td>
                    <td>{item.platform}</td>
                    <td>
                      <span class={`status status-${item.status}`}>{item.status}</span>
                    </td>
                    <td>{money(item.price, item.currency)}</td>
                    <td>{when(item.expires_at)}</td>
                  </tr>
                )}
              />
              <Pager pagination={pagination} onPage={setPage} />
            </>
          )
        }
      </Show>
    </section>
  );
}

/** A filter's select: any, or one of the values the API accepts. */
function Choice({
  values,
  ...props
}: {
  values: readonly string[];
  id: string;
  value: string;
  onInput: (event: Event) => void;
}) {
  return (
    <select {...props}>
      <option value="">any</option>
      {values.map((value) => (
        <option key={value} value={value}>
          {value}
        </option>
      ))}
    </select>
  );
}
