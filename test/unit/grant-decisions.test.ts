import { describe, expect, it } from 'vitest';
import { AppError } from '../../lib/core/errors.js';
import { entitlementStates } from '../../lib/domain/entitlements.js';
import type { GrantRecord, GrantRequest } from '../../lib/domain/grant-decisions.js';
import {
  addDuration,
  decideExpiry,
  decideGrant,
  decideRevoke,
  parseDuration,
} from '../../lib/domain/grant-decisions.js';
import { INITIAL_LIFECYCLE } from '../../lib/domain/subscription-state.js';

const NOW = new Date('2026-01-31T12:00:00.000Z');

const grant = (overrides: Partial<GrantRecord> = {}): GrantRecord => ({
  entitlement_id: 'pro',
  granted_at: '2026-01-20T12:00:00.000Z',
  expires_at: '2026-02-10T12:00:00.000Z',
  ended_at: null,
  end_reason: null,
  version: 1,
  ...overrides,
});
const RUNNING = grant();
const RAN_OUT = grant({ expires_at: '2026-01-30T12:00:00.000Z' });
const REVOKED = grant({
  expires_at: '2026-01-25T12:00:00.000Z',
  ended_at: '2026-01-25T12:00:00.000Z',
  end_reason: 'revoked',
  version: 2,
});

/** The 400 a request gets: the field its detail names and its message. */
function refusal(run: () => unknown): { path: string; message: string } | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    if (!(error instanceof AppError) || error.kind !== 'INVALID_PARAMETER') throw error;
    return error.details![0]!;
  }
}

describe('parseDuration (ISO 8601, whole units)', () => {
  it.each([
    ['P1M', { months: 1 }],
    ['P1Y2M3W4D', { years: 1, months: 2, weeks: 3, days: 4 }],
    ['PT12H', { hours: 12 }],
    ['PT90M', { minutes: 90 }],
    ['P1DT1H1M1S', { days: 1, hours: 1, minutes: 1, seconds: 1 }],
    ['P0D', {}],
    ['P12Y34M56W78D', { years: 12, months: 34, weeks: 56, days: 78 }],
    ['PT10H20M30S', { hours: 10, minutes: 20, seconds: 30 }],
  ])('%s', (text, units) => {
    expect(parseDuration(text)).toEqual({
      years: 0,
      months: 0,
      weeks: 0,
      days: 0,
      hours: 0,
      minutes: 0,
      seconds: 0,
      ...units,
    });
  });

  it.each(['', 'P', 'PT', 'P1DT', '1M', 'p1m', 'P1.5D', 'P-1D', 'P1H', 'PT1D', 'P1M1Y', 'P1234567D', 'P1M ', 'xP1D'])(
    '%j is refused',
    (text) => {
      expect(parseDuration(text)).toBeUndefined();
    },
  );
});

describe('addDuration', () => {
  it.each([
    ['P1M from Jan 31 ends on the last day of February', 'P1M', '2026-02-28T12:00:00.000Z'],
    ['P1Y', 'P1Y', '2027-01-31T12:00:00.000Z'],
    ['P1W', 'P1W', '2026-02-07T12:00:00.000Z'],
    ['PT36H', 'PT36H', '2026-02-02T00:00:00.000Z'],
    ['P1M1D: the month first, then the day', 'P1M1D', '2026-03-01T12:00:00.000Z'],
    ['PT1H30M', 'PT1H30M', '2026-01-31T13:30:00.000Z'],
    ['PT90S', 'PT90S', '2026-01-31T12:01:30.000Z'],
    ['P1DT1M1S', 'P1DT1M1S', '2026-02-01T12:01:01.000Z'],
  ])('%s', (_case, text, end) => {
    expect(addDuration(NOW, parseDuration(text)!).toISOString()).toBe(end);
  });
});

describe('decideGrant', () => {
  const cases: { case: string; current?: GrantRecord; request: GrantRequest; decision: object }[] = [
    {
      case: 'a first grant of a month starts now',
      request: { duration: 'P1M' },
      decision: { granted_at: NOW.toISOString(), expires_at: '2026-02-28T12:00:00.000Z', previous_expires_at: null },
    },
    {
      case: 'a duration extends a running grant from its end, which keeps its start',
      current: RUNNING,
      request: { duration: 'P7D' },
      decision: {
        granted_at: RUNNING.granted_at,
        expires_at: '2026-02-17T12:00:00.000Z',
        previous_expires_at: RUNNING.expires_at,
      },
    },
    {
      case: 'expires_at changes a running grant to that end, shorter too',
      current: RUNNING,
      request: { expires_at: '2026-02-01T00:00:00.000Z' },
      decision: {
        granted_at: RUNNING.granted_at,
        expires_at: '2026-02-01T00:00:00.000Z',
        previous_expires_at: RUNNING.expires_at,
      },
    },
    {
      case: 'a grant that ran out is not extended: the duration counts from now',
      current: RAN_OUT,
      request: { duration: 'P1D' },
      decision: { granted_at: NOW.toISOString(), expires_at: '2026-02-01T12:00:00.000Z', previous_expires_at: null },
    },
    {
      case: 'a grant ending exactly now runs no more: the duration counts from now',
      current: grant({ expires_at: NOW.toISOString() }),
      request: { duration: 'P1D' },
      decision: { granted_at: NOW.toISOString(), expires_at: '2026-02-01T12:00:00.000Z', previous_expires_at: null },
    },
    {
      case: 'a grant of exactly 100 years is within the bound',
      request: { duration: 'P100Y' },
      decision: { granted_at: NOW.toISOString(), expires_at: '2126-01-31T12:00:00.000Z', previous_expires_at: null },
    },
    {
      case: 'after a revoke, a grant starts afresh',
      current: REVOKED,
      request: { duration: 'PT1H' },
      decision: { granted_at: NOW.toISOString(), expires_at: '2026-01-31T13:00:00.000Z', previous_expires_at: null },
    },
  ];
  it.each(cases)('$case', ({ current, request, decision }) => {
    expect(decideGrant(current, request, NOW)).toEqual(decision);
  });

  it.each([
    ['neither field', {}, 'body: give exactly one of duration and expires_at'],
    [
      'a malformed duration',
      { duration: 'one month' },
      'duration: must be an ISO 8601 duration of whole units, e.g. P1M, P7D, PT12H',
    ],
    ['a zero duration', { duration: 'P0D' }, 'duration: must be longer than zero'],
    ['a malformed expires_at', { expires_at: 'tomorrow' }, 'expires_at: must be an ISO 8601 date-time'],
    ['expires_at in the past', { expires_at: '2026-01-01T00:00:00.000Z' }, 'expires_at: must be in the future'],
    ['a duration past the bound', { duration: 'P101Y' }, 'duration: must end at most 100 years from now'],
  ] as const)('%s is refused saying %j', (_case, request: GrantRequest, message) => {
    try {
      decideGrant(undefined, request, NOW);
      expect.unreachable();
    } catch (error) {
      expect(error instanceof AppError && error.message).toBe(message);
    }
  });

  it.each([
    ['neither field', {}, 'body'],
    ['a malformed expires_at', { expires_at: 'tomorrow' }, 'body.expires_at'],
    ['both fields', { duration: 'P1M', expires_at: '2026-03-01T00:00:00.000Z' }, 'body'],
    ['a malformed duration', { duration: 'one month' }, 'body.duration'],
    ['a fractional duration', { duration: 'P0.5D' }, 'body.duration'],
    ['a zero duration', { duration: 'P0D' }, 'body.duration'],
    ['a zero duration of a running grant', { duration: 'PT0S' }, 'body.duration'],
    ['a duration past the 100-year bound', { duration: 'P101Y' }, 'body.duration'],
    ['a duration past what a date holds', { duration: 'P999999Y' }, 'body.duration'],
    ['expires_at now', { expires_at: NOW.toISOString() }, 'body.expires_at'],
    ['expires_at in the past', { expires_at: '2026-01-01T00:00:00.000Z' }, 'body.expires_at'],
    ['expires_at past the 100-year bound', { expires_at: '2127-01-01T00:00:00.000Z' }, 'body.expires_at'],
  ] as const)('%s is a 400 naming %j', (_case, request: GrantRequest, path) => {
    expect(refusal(() => decideGrant(RUNNING, request, NOW))?.path).toBe(path);
  });
});

describe('decideRevoke and grantsModule.decideExpiry', () => {
  it('a revoke ends a running grant now, at the next version', () => {
    expect(decideRevoke(RUNNING, NOW)).toEqual({
      ...RUNNING,
      expires_at: NOW.toISOString(),
      ended_at: NOW.toISOString(),
      end_reason: 'revoked',
      version: 2,
    });
  });

  it.each([
    ['no grant', undefined],
    ['a grant that ran out', RAN_OUT],
    ['a revoked grant', REVOKED],
  ])('a revoke of %s changes nothing', (_case, current) => {
    expect(decideRevoke(current, NOW)).toBeUndefined();
  });

  it('the sweeper ends a grant that ran out at its expires_at', () => {
    expect(decideExpiry(RAN_OUT, NOW)).toEqual({
      ...RAN_OUT,
      ended_at: RAN_OUT.expires_at,
      end_reason: 'expired',
      version: 2,
    });
    expect(decideExpiry(grant({ expires_at: NOW.toISOString() }), NOW)).toMatchObject({
      end_reason: 'expired',
    });
  });

  it.each([
    ['no grant', undefined],
    ['a running grant', RUNNING],
    ['a revoked grant', REVOKED],
    ['a grant it ended already', { ...RAN_OUT, ended_at: RAN_OUT.expires_at, end_reason: 'expired' as const }],
  ])('the sweeper leaves %s alone', (_case, current) => {
    expect(decideExpiry(current, NOW)).toBeUndefined();
  });
});

describe('entitlementStates with grants', () => {
  const DEFINITIONS = [
    { id: 'pro', products: ['premium_monthly'] },
    { id: 'sync', products: ['sync_addon'] },
  ];
  const subscription = (expires_at: string) => ({
    ...INITIAL_LIFECYCLE,
    status: 'active' as const,
    product_id: 'premium_monthly',
    expires_at,
    auto_renew: true,
    trial_period: false,
    trial_expires_at: null,
    store: 'test_store' as const,
    environment: 'test' as const,
    created_at: '2026-01-01T00:00:00.000Z',
  });
  const granted = (expires_at: string, active: boolean) => ({
    active,
    product_id: null,
    expires_at,
    will_renew: false,
    period_type: 'grant',
    store: null,
    environment: null,
    billing_issue_detected_at: null,
    grace_period_expires_at: null,
  });

  it.each([
    {
      case: 'a running grant makes its entitlement active, period_type grant, and no other',
      subscriptions: [],
      grants: [RUNNING],
      pro: granted(RUNNING.expires_at, true),
    },
    {
      case: 'a grant that ran out describes the entitlement, inactive',
      subscriptions: [],
      grants: [RAN_OUT],
      pro: granted(RAN_OUT.expires_at, false),
    },
    {
      case: 'a revoked grant: inactive since the revoke',
      subscriptions: [],
      grants: [REVOKED],
      pro: granted(REVOKED.expires_at, false),
    },
    {
      case: 'a grant running longer than the subscription decides',
      subscriptions: [subscription('2026-02-05T00:00:00.000Z')],
      grants: [RUNNING],
      pro: granted(RUNNING.expires_at, true),
    },
    {
      case: 'a subscription running longer than the grant decides',
      subscriptions: [subscription('2026-03-01T00:00:00.000Z')],
      grants: [RUNNING],
      pro: {
        active: true,
        period_type: 'normal',
        product_id: 'premium_monthly',
        expires_at: '2026-03-01T00:00:00.000Z',
      },
    },
    {
      case: 'a running grant beats a subscription that has ended',
      subscriptions: [subscription('2026-01-30T00:00:00.000Z')],
      grants: [RUNNING],
      pro: granted(RUNNING.expires_at, true),
    },
    {
      case: 'a grant of another entitlement changes nothing here',
      subscriptions: [],
      grants: [{ ...RUNNING, entitlement_id: 'sync' }],
      pro: { active: false, period_type: null },
    },
  ])('$case', ({ subscriptions, grants, pro }) => {
    const states = entitlementStates(DEFINITIONS, subscriptions, NOW, grants);
    expect(states.pro).toMatchObject(pro);
    expect(states.sync!.active).toBe(grants.some((g) => g.entitlement_id === 'sync'));
  });
});
