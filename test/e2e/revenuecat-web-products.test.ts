/**
 * `GET /rcbilling/v1/subscribers/{app_user_id}/products`, replayed as purchases-js 1.63.1 builds it
 * (node_modules/@revenuecat/purchases-js/dist/Purchases.es.js): `Ju.urlPath` the path and query
 * (`?id=a&id=b`, each id and the user percent-encoded, then `&currency=` and `&discount_code=`),
 * `Am` the headers (Bearer `rcb_` key, `X-Platform: web`, `X-Version`, `X-Is-Sandbox`), `getProducts`
 * the ids once each, split by URL length. The catalogue decides: a product not sold on the web,
 * or not in the catalogue, is left out, which purchases-js reads as a package not to show.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { putProducts } from '../../lib/data/products.js';
import { MAX_PRODUCT_IDS_PER_REQUEST } from '../../lib/schemas/revenuecat.js';
import { createTestApp, PREMIUM_MONTHLY, PRO_YEARLY, type TestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';
import { anonymousId, json } from '../support/revenuecat-requests.js';

const { send } = useGateway();

/** purchases-js's `Am`: what every call of it carries. */
const webHeaders = (key: string) => ({
  authorization: `Bearer rcb_${key}`,
  'content-type': 'application/json',
  accept: 'application/json',
  'x-platform': 'web',
  'x-version': '1.63.1',
  'x-is-sandbox': 'false',
});

/** purchases-js's `Ju.urlPath`. */
const productsPath = (user: string, ids: string[], currency?: string) =>
  `/rcbilling/v1/subscribers/${encodeURIComponent(user)}/products?id=${ids.map(encodeURIComponent).join('&id=')}${
    currency ? `&currency=${currency}` : ''
  }`;

const WEEKLY = {
  ...PREMIUM_MONTHLY,
  id: 'plan.weekly',
  name: 'Weekly',
  billing_period: 'weekly',
  price: 2.49,
} as const;

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
  await putProducts(app.appId, [WEEKLY]);
});

describe('GET /rcbilling/v1/subscribers/{app_user_id}/products', () => {
  it('answers the products sold on the web, in the order asked, each once; unknown and app-only ones left out', async () => {
    const res = await send(
      'GET',
      productsPath(anonymousId(), ['plan.weekly', 'pro_yearly', 'nope', 'premium_monthly']),
      {
        headers: webHeaders(app.sdkKey),
      },
    );
    expect(res.status, res.text).toBe(200);
    const body = json(res.text);
    expect(body.product_details.map((p: { identifier: string }) => p.identifier)).toEqual([
      'plan.weekly',
      'premium_monthly',
    ]);
    expect(body.product_details[0].purchase_options.base.base).toEqual({
      period_duration: 'P1W',
      price: { amount_micros: 2_490_000, currency: 'USD' },
      cycle_count: null,
    });
    expect(PRO_YEARLY.platforms).not.toContain('web');
  });

  it('takes the currency purchases-js may pass and answers in the catalogue currency (it converts nothing)', async () => {
    const res = await send('GET', productsPath('web-user', ['premium_monthly'], 'EUR'), {
      headers: webHeaders(app.sdkKey),
    });
    expect(res.status, res.text).toBe(200);
    expect(json(res.text).product_details[0].purchase_options.base.base.price).toEqual({
      amount_micros: 9_990_000,
      currency: 'USD',
    });
  });

  it('refuses in RevenueCat envelope: no id, too many ids, a parameter it does not take or given twice, no key', async () => {
    const refused = async (path: string, headers = webHeaders(app.sdkKey)) => {
      const res = await send('GET', path, { headers });
      return { status: res.status, code: json(res.text).code as number };
    };
    const user = '/rcbilling/v1/subscribers/web-user/products';
    expect(await refused(user)).toEqual({ status: 400, code: 7226 });
    const many = Array.from({ length: MAX_PRODUCT_IDS_PER_REQUEST + 1 }, (_, i) => `p${i}`);
    expect(await refused(productsPath('web-user', many))).toEqual({ status: 400, code: 7226 });
    expect(await refused(`${productsPath('web-user', ['premium_monthly'])}&currency=EUR&currency=USD`)).toEqual({
      status: 400,
      code: 7226,
    });
    expect(await refused(`${productsPath('web-user', ['premium_monthly'])}&sort=price`)).toEqual({
      status: 400,
      code: 7226,
    });
    expect(await refused(productsPath('web-user', ['premium_monthly']), webHeaders('pk_not-a-key'))).toEqual({
      status: 401,
      code: 7225,
    });
  });

  it('answers a browser: the preflight allows the headers purchases-js sends, the answer any origin', async () => {
    const path = productsPath('web-user', ['premium_monthly']);
    const preflight = await send('OPTIONS', path, {
      headers: {
        origin: 'https://shop.example.com',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization,x-platform,x-version,x-is-sandbox,content-type,accept',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    const res = await send('GET', path, { headers: { ...webHeaders(app.sdkKey), origin: 'https://shop.example.com' } });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });
});
