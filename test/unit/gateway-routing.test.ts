import { describe, expect, it } from 'vitest';
import { compileRoutes, matchRoute } from '../../lib/local/gateway.js';
import { ROUTES, SUBSCRIPTIONS_BASE } from '../../lib/routes.js';

const compiled = compileRoutes(ROUTES);

describe('local gateway routing', () => {
  it('every route in the table is reachable by its own path', () => {
    for (const route of ROUTES) {
      const path = route.path.replace(/\{[^}]+\}/g, 'sub_0123456789abcdef01234567');
      expect(matchRoute(compiled, route.method, path)?.route.name).toBe(route.name);
    }
  });

  it('literal paths are never taken for subscription ids', () => {
    expect(matchRoute(compiled, 'GET', `${SUBSCRIPTIONS_BASE}/products`)?.route.name).toBe('ListProducts');
    const byId = matchRoute(compiled, 'GET', `${SUBSCRIPTIONS_BASE}/sub_1`);
    expect(byId?.route.name).toBe('GetSubscription');
    expect(byId?.pathParameters).toEqual({ subscription_id: 'sub_1' });
  });

  it('path parameters are URL-decoded', () => {
    expect(matchRoute(compiled, 'GET', `${SUBSCRIPTIONS_BASE}/a%20b`)?.pathParameters).toEqual({ subscription_id: 'a b' });
  });

  it('unknown paths and methods match nothing', () => {
    expect(matchRoute(compiled, 'DELETE', `${SUBSCRIPTIONS_BASE}/sub_1`)).toBeUndefined();
    expect(matchRoute(compiled, 'GET', '/v1/nothing')).toBeUndefined();
    expect(matchRoute(compiled, 'GET', `${SUBSCRIPTIONS_BASE}/sub_1/extra/deep`)).toBeUndefined();
  });

  it('route names are unique and every handler module is named once', () => {
    expect(new Set(ROUTES.map((r) => r.name)).size).toBe(ROUTES.length);
    expect(new Set(ROUTES.map((r) => `${r.method} ${r.path}`)).size).toBe(ROUTES.length);
  });
});
