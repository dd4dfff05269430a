import { get, type Product } from '../api';
import { money } from '../format';
import { Empty, Show, Table, useLoad } from '../ui';

export function Products() {
  const loaded = useLoad(() => get<{ data: Product[] }>('/v1/subscriptions/products'), []);
  return (
    <section>
      <h1>Products</h1>
      <Show loaded={loaded} what="the catalogue">
        {({ data }) =>
          data.length === 0 ? (
            <Empty>No products yet: add them with `npm run admin -- products put`.</Empty>
          ) : (
            <Table
              columns={['Product', 'Name', 'Price', 'Billing', 'Trial days', 'Platforms', 'Active']}
              rows={data}
              row={(product) => (
                <tr key={product.id}>
                  <td>
                    <code>{product.id}</code>
                  </td>
                  <td>{product.name}</td>
                  <td>{money(product.price, product.currency)}</td>
                  <td>{product.billing_period}</td>
                  <td>{product.trial_period_days}</td>
                  <td>{product.platforms.join(', ')}</td>
                  <td>{product.active ? 'yes' : 'no'}</td>
                </tr>
              )}
            />
          )
        }
      </Show>
    </section>
  );
}
