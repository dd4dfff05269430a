/**
 * The mobile endpoints' header and user-token rules as their declarations give them, with the
 * expected values written out from the spec (mobile-reporting-api.md: the common headers;
 * segment-info's example sends only X-USER-ID and X-APP-ID), not read from the declarations.
 */
import { describe, expect, it } from 'vitest';
import { type MobileDeclaration, mobileRulesOf } from '../../lib/http/declaration.js';
import { ROUTES } from '../../lib/routes.js';
import { declarationsOf } from '../../openapi/declarations.js';

describe('mobileRulesOf', () => {
  it('asks every common header and acts on the user unless the declaration says otherwise', () => {
    expect(mobileRulesOf({})).toEqual({ headers: 'common', actsOnUser: true });
    expect(mobileRulesOf({ headers: 'identity' })).toEqual({ headers: 'identity', actsOnUser: true });
    expect(mobileRulesOf({ actsOnUser: false })).toEqual({ headers: 'common', actsOnUser: false });
  });
});

describe('the mobile routes', () => {
  it('give /segment/info the identity rule and every other route the common one, all acting on the user', async () => {
    const mobile = ROUTES.filter((route) => route.api === 'mobile');
    const declarations = await declarationsOf(mobile);
    const rules = Object.fromEntries(
      [...declarations].map(([name, declaration]) => [name, mobileRulesOf(declaration as MobileDeclaration)]),
    );
    expect(Object.keys(rules)).toHaveLength(mobile.length);
    expect(Object.keys(rules)).toContain('SegmentInfo');
    for (const [name, rule] of Object.entries(rules)) {
      expect({ name, ...rule }).toEqual({
        name,
        headers: name === 'SegmentInfo' || name === 'DingYueSegmentInfo' ? 'identity' : 'common',
        actsOnUser: true,
      });
    }
  });
});

describe('the DingYue routes', () => {
  it("each declare the SDK's call, which asks the headers every SDK call sets (its OpenAPIs/APIs/*.swift builders)", async () => {
    const dingyue = ROUTES.filter((route) => route.path.startsWith('/dingyue/'));
    const declarations = await declarationsOf(dingyue);
    for (const [name, declaration] of declarations) {
      const call = (declaration as MobileDeclaration).dingyue;
      expect(call, name).toBeDefined();
      expect(call!.headers ?? 'dingyue', name).toBe('dingyue');
    }
  });
});
