import { describe, expect, it } from 'vitest';
import type { AppError } from '../../lib/core/errors.js';
import {
  type DeliveryFacts,
  decodeDeliveryCursor,
  deliveredChange,
  deliveryView,
  encodeDeliveryCursor,
} from '../../lib/domain/webhook-deliveries.js';
import type { EventPayload } from '../../lib/events/schemas.js';

const SUB = 'sub_0123456789abcdef01234567';
const OTHER = 'sub_76543210fedcba9876543210';
const AT = '2026-11-20T08:30:00.000Z';
const SORT_KEY = `${AT}#evt_0123456789abcdef01234567`;
const store = { subscription_id: SUB, user_id: 'u', product_id: 'p', expires_at: AT, auto_renew: true };

describe('deliveredChange: the subscription an event is about, and what happened', () => {
  it.each<[string, EventPayload, { subscription_id: string | null; change: string }]>([
    [
      'a status change',
      {
        event: 'subscription.status_changed',
        timestamp: AT,
        data: { ...store, old_status: 'active', new_status: 'expired' },
      } as EventPayload,
      { subscription_id: SUB, change: 'active->expired' },
    ],
    [
      'a transfer names the subscription it moved to',
      {
        event: 'subscription.transferred',
        timestamp: AT,
        data: { from_subscription_id: OTHER, to_subscription_id: SUB },
      } as EventPayload,
      { subscription_id: SUB, change: `transferred from ${OTHER}` },
    ],
    [
      'a renewal',
      { event: 'subscription.renewed', timestamp: AT, data: store } as EventPayload,
      { subscription_id: SUB, change: `renewed to ${AT}` },
    ],
    [
      'auto-renew off',
      {
        event: 'subscription.auto_renew_changed',
        timestamp: AT,
        data: { ...store, auto_renew: false },
      } as EventPayload,
      { subscription_id: SUB, change: 'auto_renew off' },
    ],
    [
      'auto-renew turned back on',
      { event: 'subscription.auto_renew_changed', timestamp: AT, data: store } as EventPayload,
      { subscription_id: SUB, change: 'auto_renew on' },
    ],
    [
      'a billing issue',
      { event: 'subscription.billing_issue', timestamp: AT, data: store } as EventPayload,
      { subscription_id: SUB, change: 'billing issue' },
    ],
    [
      'a refund',
      { event: 'subscription.refunded', timestamp: AT, data: { ...store, refunded_at: AT } } as EventPayload,
      { subscription_id: SUB, change: 'refunded' },
    ],
    [
      'a refund reversed',
      { event: 'subscription.refund_reversed', timestamp: AT, data: store } as EventPayload,
      { subscription_id: SUB, change: 'refund reversed' },
    ],
    [
      'a plan change',
      {
        event: 'subscription.product_changed',
        timestamp: AT,
        data: { ...store, product_id: 'pro', previous_product_id: 'basic' },
      } as EventPayload,
      { subscription_id: SUB, change: 'basic->pro' },
    ],
    ...(['granted', 'revoked', 'expired'] as const).map(
      (what): [string, EventPayload, { subscription_id: null; change: string }] => [
        `an entitlement ${what}: about no subscription`,
        {
          event: `entitlement.${what}`,
          timestamp: AT,
          data: { user_id: 'user_9', entitlement_id: 'pro' },
        } as EventPayload,
        { subscription_id: null, change: `pro of user_9 ${what}` },
      ],
    ),
  ])('%s', (_name, payload, expected) => {
    expect(deliveredChange(payload)).toEqual(expected);
  });
});

describe('deliveryView', () => {
  const delivery: DeliveryFacts = {
    event_id: 'evt_0123456789abcdef01234567',
    payload: { event: 'subscription.refunded', timestamp: AT, data: { ...store, refunded_at: AT } } as EventPayload,
    status: 'pending',
    attempts: 2,
    next_attempt_at: AT,
    attempt_log: [
      { status_code: null, error: 'connect ECONNREFUSED' },
      { status_code: 503, error: null },
    ],
    created_at: AT,
    updated_at: '2026-11-20T08:31:00.000Z',
  };

  it('shows the last attempt only, and null where a field was never set', () => {
    expect(deliveryView(delivery)).toEqual({
      event_id: 'evt_0123456789abcdef01234567',
      event: 'subscription.refunded',
      subscription_id: SUB,
      change: 'refunded',
      status: 'pending',
      attempts: 2,
      next_attempt_at: AT,
      last_status_code: 503,
      last_error: null,
      redelivered_at: null,
      created_at: AT,
      updated_at: '2026-11-20T08:31:00.000Z',
    });
  });

  it.each([
    ['never attempted', [], { last_status_code: null, last_error: null }],
    [
      'failed without an answer',
      [{ status_code: null, error: 'timeout' }],
      { last_status_code: null, last_error: 'timeout' },
    ],
    [
      // Recorded before errors were categories: the text (an address, a port) is not shown.
      'failed before errors were categories',
      [{ status_code: null, error: 'connect ECONNREFUSED 10.0.0.7:6379' }],
      { last_status_code: null, last_error: 'network' },
    ],
  ] as const)('%s', (_name, attempt_log, expected) => {
    expect(deliveryView({ ...delivery, attempt_log })).toMatchObject(expected);
  });
});

describe('the deliveries cursor', () => {
  it('leads back to where the page ended, for the same status filter', () => {
    for (const status of [null, 'dead'] as const)
      expect(decodeDeliveryCursor(encodeDeliveryCursor({ after: SORT_KEY, status }), status)).toBe(SORT_KEY);
  });

  const code = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      return { code: (error as AppError).code, message: (error as AppError).message };
    }
    return undefined;
  };

  it.each([
    ['not base64url JSON', '%%%', null, 'cursor is not valid'],
    ['JSON but not a cursor', Buffer.from('{"x":1}').toString('base64url'), null, 'cursor is not valid'],
    [
      'a sort key of another shape',
      encodeDeliveryCursor({ after: 'SUB#x', status: null }),
      null,
      'cursor is not valid',
    ],
    ...(['null', '5', '"cursor"', '[]'] as const).map(
      (json) => [`JSON ${json}`, Buffer.from(json).toString('base64url'), null, 'cursor is not valid'] as const,
    ),
    [
      'a sort key with text before it',
      encodeDeliveryCursor({ after: `x${SORT_KEY}`, status: null }),
      null,
      'cursor is not valid',
    ],
    [
      'a sort key with text after it',
      encodeDeliveryCursor({ after: `${SORT_KEY}x`, status: null }),
      null,
      'cursor is not valid',
    ],
    [
      'issued for all, used with a status',
      encodeDeliveryCursor({ after: SORT_KEY, status: null }),
      'dead',
      'cursor was issued for another status filter',
    ],
    [
      'issued for a status, used with another',
      encodeDeliveryCursor({ after: SORT_KEY, status: 'dead' }),
      'pending',
      'cursor was issued for another status filter',
    ],
    [
      'issued for a status, used with none',
      encodeDeliveryCursor({ after: SORT_KEY, status: 'dead' }),
      null,
      'cursor was issued for another status filter',
    ],
  ] as const)('refuses %s (400 INVALID_PARAMETER)', (_name, cursor, status, message) => {
    expect(code(() => decodeDeliveryCursor(cursor, status))).toEqual({ code: 'INVALID_PARAMETER', message });
  });

  it('says where the fault is and what to do', () => {
    const details = (cursor: string, status: 'dead' | null) => {
      try {
        decodeDeliveryCursor(cursor, status);
      } catch (error) {
        return (error as AppError).details;
      }
      return undefined;
    };
    expect(details('%%%', null)).toEqual([{ path: 'query.cursor', message: 'is not a cursor issued by this API' }]);
    expect(details(encodeDeliveryCursor({ after: SORT_KEY, status: null }), 'dead')).toEqual([
      { path: 'query.cursor', message: 'use the cursor with the same status as the page it came from' },
    ]);
  });
});
