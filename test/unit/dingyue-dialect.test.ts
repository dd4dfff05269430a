/** The DingYue SDK's requests as the spec's and our answers as its models (lib/domain/dingyue-dialect.ts), as tables. */
import { describe, expect, it } from 'vitest';
import {
  dingyueSwitchesOf,
  specAttributesOf,
  specEventsOf,
  specPropertiesOf,
} from '../../lib/domain/dingyue-dialect.js';
import { heldSubscriptions, subscribedObjectOf } from '../../lib/domain/subscribed-object.js';
import { USER_ATTRIBUTE_NAMES, userAttributesBody } from '../../lib/schemas/mobile.js';

const NOW = new Date('2026-12-02T12:00:00.000Z');

describe('USER_ATTRIBUTE_NAMES', () => {
  it("are the keys of the spec's attribute body, which the dialect maps an edit to", () => {
    expect([...USER_ATTRIBUTE_NAMES].sort()).toEqual(Object.keys(userAttributesBody._zod.def.shape).sort());
  });
});

describe('subscribedObjectOf', () => {
  it.each([
    [
      'a store purchase',
      { product_id: 'p', original_transaction_id: '2000001', expires_at: '2026-12-31T00:00:00.000Z', id: 'sub_1' },
      { platformProductId: 'p', originalTransactionId: '2000001', expiresAt: Date.parse('2026-12-31T00:00:00.000Z') },
    ],
    [
      'one an app server created (no transaction): its id stands in',
      { product_id: 'p', original_transaction_id: null, expires_at: '2026-12-31T00:00:00.000Z', id: 'sub_1' },
      { platformProductId: 'p', originalTransactionId: 'sub_1', expiresAt: Date.parse('2026-12-31T00:00:00.000Z') },
    ],
    [
      "a verification's result without a transaction: its subscription id stands in",
      {
        product_id: 'p',
        original_transaction_id: null,
        expires_at: '2026-12-31T00:00:00.000Z',
        subscription_id: 'sub_9',
      },
      { platformProductId: 'p', originalTransactionId: 'sub_9', expiresAt: Date.parse('2026-12-31T00:00:00.000Z') },
    ],
    [
      'nothing to name it by: an empty id',
      { product_id: 'p', original_transaction_id: null, expires_at: '2026-12-31T00:00:00.000Z' },
      { platformProductId: 'p', originalTransactionId: '', expiresAt: Date.parse('2026-12-31T00:00:00.000Z') },
    ],
    [
      'one in a grace period: access ends when the grace does',
      {
        product_id: 'p',
        original_transaction_id: '2000001',
        expires_at: '2026-12-01T00:00:00.000Z',
        grace_period_expires_at: '2026-12-17T00:00:00.000Z',
      },
      { platformProductId: 'p', originalTransactionId: '2000001', expiresAt: Date.parse('2026-12-17T00:00:00.000Z') },
    ],
  ])('%s', (_case, subscription, expected) => {
    expect(subscribedObjectOf(subscription)).toEqual(expected);
  });
});

describe('heldSubscriptions', () => {
  it.each([
    ['active, within its period', 'active', '2026-12-03T00:00:00.000Z', true],
    ['active, its period over (not yet swept)', 'active', '2026-12-01T00:00:00.000Z', false],
    ['active, its period ending this instant', 'active', NOW.toISOString(), false],
    ['paused', 'paused', '2026-12-03T00:00:00.000Z', false],
    ['cancelled', 'cancelled', '2026-12-03T00:00:00.000Z', false],
    ['expired', 'expired', '2026-12-03T00:00:00.000Z', false],
    ['pending verification', 'pending_verification', '2026-12-03T00:00:00.000Z', false],
  ] as const)('%s: %s', (_case, status, expires_at, held) => {
    expect(heldSubscriptions([{ status, expires_at, grace_period_expires_at: null }], NOW)).toHaveLength(held ? 1 : 0);
  });

  it('holds an active subscription in its grace period, and not once the grace is over', () => {
    const lapsed = { status: 'active' as const, expires_at: '2026-12-01T00:00:00.000Z' };
    expect(heldSubscriptions([{ ...lapsed, grace_period_expires_at: '2026-12-03T00:00:00.000Z' }], NOW)).toHaveLength(
      1,
    );
    expect(heldSubscriptions([{ ...lapsed, grace_period_expires_at: '2026-12-02T00:00:00.000Z' }], NOW)).toHaveLength(
      0,
    );
  });
});

describe('specEventsOf', () => {
  it("files each event under X-USER-ID, with the SDK's user and extra as properties, one id per event of the request", () => {
    expect(
      specEventsOf(
        [
          { name: 'ENTER_PAYWALL', extra: '2.0', user: 'paywall-1', sessionId: 's1' },
          { name: 'ENTER_PAYWALL', extra: '2.0', user: 'paywall-1', sessionId: 's1' },
          { name: 'ABOUT_PRIVACYPOLICY' },
        ],
        'req-1',
      ),
    ).toEqual([
      {
        eventName: 'ENTER_PAYWALL',
        eventId: 'req-1:0',
        sessionId: 's1',
        properties: { extra: '2.0', user: 'paywall-1' },
      },
      {
        eventName: 'ENTER_PAYWALL',
        eventId: 'req-1:1',
        sessionId: 's1',
        properties: { extra: '2.0', user: 'paywall-1' },
      },
      { eventName: 'ABOUT_PRIVACYPOLICY', eventId: 'req-1:2', properties: {} },
    ]);
    expect(specEventsOf([{ name: 'X', extra: null, user: null, sessionId: null }], 'r')).toEqual([
      { eventName: 'X', eventId: 'r:0', properties: {} },
    ]);
  });
});

describe('specPropertiesOf', () => {
  it.each([
    ['the bare dictionary', { plan_tier: 'gold', level: 3 }, { plan_tier: 'gold', level: 3 }],
    [
      "the example app's list of pairs",
      {
        customProperties: [
          { key: 'test0', value: '1' },
          { key: 'b', value: 2 },
        ],
      },
      { test0: '1', b: 2 },
    ],
    [
      'a list beside other keys: the dictionary as sent',
      { customProperties: [{ key: 'a', value: '1' }], other: 1 },
      { customProperties: [{ key: 'a', value: '1' }], other: 1 },
    ],
    ['a list that is not of pairs: as sent', { customProperties: [1, 2] }, { customProperties: [1, 2] }],
    [
      'a list of pairs and something else: as sent',
      { customProperties: [{ key: 'a', value: 1 }, 'b'] },
      { customProperties: [{ key: 'a', value: 1 }, 'b'] },
    ],
    ['a list holding null: as sent', { customProperties: [null] }, { customProperties: [null] }],
    [
      'a list of pairs whose key is no string: as sent',
      { customProperties: [{ key: 1, value: 2 }] },
      { customProperties: [{ key: 1, value: 2 }] },
    ],
    ['a list of strings: as sent', { customProperties: ['key'] }, { customProperties: ['key'] }],
  ])('%s', (_case, body, expected) => {
    expect(specPropertiesOf(body)).toEqual(expected);
  });
});

describe('specAttributesOf', () => {
  it("sends the spec's attribute names as attributes, others as custom properties by their last part", () => {
    expect(
      specAttributesOf([
        { key: 'email', value: 'a@example.com' },
        { key: 'uniqueUser.extraData.userPurchasedSources', value: 'paywall:Summer/1/2.0' },
        { key: 'vip', value: true },
        { key: 'tags', value: ['a', 'b'] },
        { key: 'language', value: true },
      ]),
    ).toEqual({
      attributes: { email: 'a@example.com' },
      properties: { userPurchasedSources: 'paywall:Summer/1/2.0', vip: true, tags: '["a","b"]', language: true },
    });
  });
});

describe("specAttributesOf: the spec's attribute names", () => {
  it.each([
    'email',
    'name',
    'first_name',
    'last_name',
    'phone',
    'language',
    'country',
    'gender',
    'birthday',
    'timezone',
  ])('%s is an attribute', (key) => {
    expect(specAttributesOf([{ key, value: 'v' }])).toEqual({ attributes: { [key]: 'v' }, properties: {} });
  });
});

describe('dingyueSwitchesOf', () => {
  it('answers the boolean switches: their value for the user, and as set', () => {
    const switches = [
      { key: 'banner', type: 'boolean', description: 'Trial banner', value: true },
      { key: 'theme', type: 'json', description: '', value: { color: 'blue' } },
      { key: 'beta', type: 'boolean', description: '', value: false },
      { key: 'dark', type: 'boolean', description: 'Dark mode', value: true },
    ];
    expect(dingyueSwitchesOf(switches, { banner: { value: false }, theme: { value: {} } })).toEqual({
      switchItems: [
        { variableName: 'banner', variableValue: false },
        { variableName: 'beta', variableValue: false },
        { variableName: 'dark', variableValue: true },
      ],
      globalSwitchItems: [
        { showName: 'Trial banner', varName: 'banner', value: true },
        { showName: 'beta', varName: 'beta', value: false },
        { showName: 'Dark mode', varName: 'dark', value: true },
      ],
    });
  });
});
