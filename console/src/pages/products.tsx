import { get, type Product } from '../api';
import { money } from '../format';
import { Empty, Show, useLoad } from '../ui';

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
            <table>
              <thead>
                <tr>
                  <th scope="col">Product</th>
                  <th scope="col">Name</th>
                  <th scope="col">Price</th>
                  <th scope="col">Billing</th>
                  <th scope="col">Trial days</th>
                  <th scope="col">Platforms</th>
                  <th scope="col">Active</th>
                </tr>
              </thead>
              <tbody>
                {data.map((product) => (
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
                ))}
              </tbody>
            </table>
          )
        }
      </Show>
    </section>
  );
}
