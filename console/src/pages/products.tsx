import { get, type Product } from '../api';
import { money } from '../format';
import { CopyableCommand, Empty, Show, Table, useLoad } from '../ui';

/** The admin command that stores a catalogue, as an operator runs it beside `npm start`. */
export const PRODUCTS_PUT_COMMAND = 'npm run --silent admin -- products put --app APP_ID --file products.json';

/** A products.json to start from: one monthly product on both stores. */
export const EXAMPLE_CATALOGUE = `[
  {
    "id": "premium_monthly",
    "name": "Premium",
    "price": 9.99,
    "currency": "USD",
    "billing_period": "monthly",
    "trial_period_days": 7,
    "platforms": ["ios", "android"]
  }
]`;

function ProductsHowTo() {
  return (
    <div data-testid="products-empty">
      <Empty>No products yet. Store the catalogue from a terminal in the project's folder:</Empty>
      <CopyableCommand command={PRODUCTS_PUT_COMMAND} />
      <p class="hint">
        APP_ID is the app's id (<code>npm run --silent admin -- apps list</code> lists them). products.json is a JSON
        array of products, the stores' product ids as ids; for example:
      </p>
      <CopyableCommand command={EXAMPLE_CATALOGUE} testId="example-catalogue" />
    </div>
  );
}

export function Products() {
  const loaded = useLoad(() => get<{ data: Product[] }>('/v1/subscriptions/products'), []);
  return (
    <section>
      <h1>Products</h1>
      <Show loaded={loaded} what="the catalogue">
        {({ data }) =>
          data.length === 0 ? (
            <ProductsHowTo />
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
