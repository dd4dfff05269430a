import { describe, expect, it } from 'vitest';
import { endpointFunctions, ROUTES, type Route } from '../../lib/routes.js';

describe('one function per handler module', () => {
  const functions = endpointFunctions();

  it('serves every route exactly once, from the function of its handler module', () => {
    expect(functions.flatMap((fn) => fn.routes.map((route) => route.name)).sort()).toEqual(
      ROUTES.map((route) => route.name).sort(),
    );
    expect(functions.map((fn) => fn.handler)).toEqual([...new Set(ROUTES.map((route) => route.handler))]);
    for (const fn of functions) for (const route of fn.routes) expect(route.handler, route.name).toBe(fn.handler);
  });

  it("serves RevenueCat's events and diagnostics, and its two attribution posts, accepted alike, with one function each", () => {
    const shared = functions.filter(
      (fn) => fn.routes.some((route) => route.api === 'revenuecat') && fn.routes.length > 1,
    );
    expect(shared.map((fn) => [fn.name, fn.routes.map((route) => route.path)])).toEqual([
      [
        'RevenueCatPostAdServicesToken',
        ['/v1/subscribers/{app_user_id}/adservices_attribution', '/v1/subscribers/{app_user_id}/attribution'],
      ],
      ['RevenueCatPostEvents', ['/v1/events', '/v1/diagnostics']],
    ]);
  });

  it('serves both paths of the nine V1/V2 mobile endpoints with one function named by the V1 route', () => {
    const spec = endpointFunctions(ROUTES.filter((route) => !route.path.startsWith('/dingyue/')));
    const shared = spec.filter((fn) => fn.routes.length > 1 && fn.routes[0]!.api === 'mobile');
    expect(shared.map((fn) => [fn.name, fn.routes.map((route) => route.path)])).toEqual([
      ['ReportEvents', ['/users/report/events', '/v2/users/report/events']],
      ['CustomerInfo', ['/users/customer_info', '/v2/users/customer_info']],
      ['UserOfferings', ['/offerings', '/v2/offerings']],
      ['ReportSession', ['/sessions/report', '/v2/sessions/report']],
      ['ReportOrder', ['/order/report', '/v2/order/report']],
      ['ReportConversion', ['/conversion/report', '/v2/conversion/report']],
      ['ReportGlobalSwitch', ['/report/global_switch', '/v2/report/global_switch']],
      ['ReportTyped', ['/report/{type}', '/v2/report/{type}']],
      ['UpdateUserAttributes', ['/users/attribute/update', '/v2/users/attribute/update']],
    ]);
  });

  it("serves each of the DingYue SDK's 12 routes with the function of the spec route it mirrors: no function of its own", () => {
    const dingyue = ROUTES.filter((route) => route.path.startsWith('/dingyue/'));
    expect(dingyue).toHaveLength(12);
    for (const route of dingyue) {
      const fn = functions.find((candidate) => candidate.routes.includes(route))!;
      expect(fn.routes[0]!.path.startsWith('/dingyue/'), route.name).toBe(false);
      expect(fn.routes.map((r) => r.path)).toContain(route.path.slice('/dingyue'.length));
    }
    // Fewer functions than routes by the nine V1/V2 pairs, the 12 DingYue calls, RevenueCat's diagnostics and attribution.
    expect(functions).toHaveLength(ROUTES.length - 9 - 12 - 2);
  });

  it('refuses routes of one module that need different grants: one role could not be least privilege for both', () => {
    const route: Route = {
      name: 'A',
      api: 'mobile',
      method: 'POST',
      path: '/a',
      handler: 'functions/mobile/report-order.ts',
      table: ['GetItem', 'UpdateItem'],
    };
    // The same actions in another order, repeated, are the same grants.
    expect(
      endpointFunctions([route, { ...route, name: 'B', path: '/b', table: ['UpdateItem', 'GetItem', 'GetItem'] }]),
    ).toHaveLength(1);
    expect(() => endpointFunctions([route, { ...route, name: 'B', path: '/b', table: ['GetItem'] }])).toThrow(
      'A and B share functions/mobile/report-order.ts but not their grants',
    );
    expect(() => endpointFunctions([route, { ...route, name: 'B', path: '/b', storeSecrets: true }])).toThrow(
      /not their grants/,
    );
  });
});
