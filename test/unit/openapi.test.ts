/** The OpenAPI document: committed up to date, one operation per route, each from its endpoint's declaration. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MAX_NOTIFICATION_BYTES } from '../../lib/domain/store-purchase.js';
import { ROUTES } from '../../lib/routes.js';
import { declarationsOf } from '../../openapi/declarations.js';
import { buildDocument, DOCUMENT_PATH, serializeDocument } from '../../openapi/document.js';
import { OPERATIONS } from '../../openapi/operations.js';
import { contractProblems } from '../support/contract.js';

const document = await buildDocument();

describe('docs/openapi.json', () => {
  it('is what `npm run openapi` builds now (run it after changing a route or a declaration)', () => {
    expect(readFileSync(DOCUMENT_PATH, 'utf8')).toBe(serializeDocument(document));
  });

  it("has one operation per route of lib/routes.ts but the SDK dialects' (docs/sdk-dingyue.md, docs/sdk-revenuecat.md), and openapi/operations.ts describes no other", () => {
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId}`),
    );
    expect(operations.sort()).toEqual(
      ROUTES.filter((r) => !r.path.startsWith('/dingyue/') && r.api !== 'revenuecat')
        .map((r) => `${r.method} ${r.path} ${r.name}`)
        .sort(),
    );
    const described = new Set(ROUTES.map((r) => r.name.replace(/V2$/, '')));
    expect(Object.keys(OPERATIONS).filter((name) => !described.has(name))).toEqual([]);
  });

  it('reads each route from the declaration its handler module exports beside the handler', async () => {
    const declarations = await declarationsOf();
    for (const route of ROUTES) {
      const module = await import(`../../${route.handler}`);
      expect(Object.keys(module).sort()).toEqual(['endpoint', 'handler']);
      expect(declarations.get(route.name)).toBe(module.endpoint);
    }
  });
});

describe('the store notification routes', () => {
  it("state the handler's body limit", () => {
    for (const route of ROUTES.filter((r) => r.api === 'notifications')) {
      expect(document.paths[route.path]!.post!.description).toContain(
        `A body over ${MAX_NOTIFICATION_BYTES / 1024} KB is a 413`,
      );
    }
  });
});

describe('the contract check of e2e answers (test/support/contract.ts)', () => {
  const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
    const all: Record<string, string> = {
      'content-type': 'application/json; charset=utf-8',
      'x-request-id': 'r1',
      ratelimit: '"standard";r=1;t=1',
      'ratelimit-policy': '"standard";q=200;w=60',
      ...headers,
    };
    return { status, header: (name: string) => all[name], text: JSON.stringify(body) };
  };
  const product = {
    id: 'pro',
    name: 'Pro',
    description: '',
    price: 1,
    currency: 'USD',
    billing_period: 'monthly',
    trial_period_days: 0,
    features: [],
    platforms: ['ios'],
    active: true,
  };

  it('accepts a documented answer', () => {
    expect(contractProblems('GET', '/v1/subscriptions/products', json(200, { data: [product] }))).toEqual([]);
    const notFound = { error: { code: 'SUBSCRIPTION_NOT_FOUND', message: 'Subscription not found' } };
    expect(contractProblems('GET', '/v1/subscriptions/sub_x', json(404, notFound))).toEqual([]);
  });

  it('refuses an undocumented status, a body off its schema, a code the status does not list, a missing header', () => {
    expect(
      contractProblems('GET', '/v1/subscriptions/products', json(409, { error: { code: 'X', message: 'm' } })),
    ).toEqual(['status 409 is not documented for ListProducts']);
    expect(
      contractProblems('GET', '/v1/subscriptions/products', json(200, { data: [{ ...product, extra: 1 }] })),
    ).not.toEqual([]);
    expect(
      contractProblems(
        'GET',
        '/v1/subscriptions/products',
        json(404, { error: { code: 'PRODUCT_NOT_FOUND', message: 'm' } }),
      ),
    ).not.toEqual([]);
    const missing = json(200, { data: [product] });
    expect(contractProblems('GET', '/v1/subscriptions/products', { ...missing, header: () => undefined })).toContain(
      'ListProducts 200: header X-Request-Id is missing',
    );
  });

  it('expects 404 ROUTE_NOT_FOUND off the routes and 405 with Allow for a method a path does not serve', () => {
    const notFound = { status: 'error', code: 'ROUTE_NOT_FOUND', message: 'No endpoint' };
    expect(contractProblems('GET', '/nowhere', json(404, notFound))).toEqual([]);
    expect(contractProblems('GET', '/nowhere', json(200, notFound))).not.toEqual([]);
    const notAllowed = { error: { code: 'METHOD_NOT_ALLOWED', message: 'm' } };
    expect(contractProblems('DELETE', '/v1/subscriptions', json(405, notAllowed, { allow: 'GET, POST' }))).toEqual([]);
    expect(contractProblems('DELETE', '/v1/subscriptions', json(405, notAllowed))).toEqual(['Allow header is wrong']);
  });
});
