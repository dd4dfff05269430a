import { describe, expect, it } from 'vitest';
import { type ChosenBy, inAudience, shownTo, type Viewer } from '../../lib/domain/offering-choice.js';
import type { Audience, OfferingsDocument, RemoteSwitch } from '../../lib/schemas/offering.js';

const viewer = (segments: string[], platform?: Viewer['platform']): Viewer => ({
  segments: new Set(segments),
  platform,
});

describe('offerings: who is in an audience', () => {
  it.each<[string, Audience, Viewer, boolean]>([
    ['a segment the user is in', { segment: 'paying' }, viewer(['paying']), true],
    ['a segment the user is not in', { segment: 'paying' }, viewer(['never_subscribed']), false],
    ['the platform of the request', { platform: 'ios' }, viewer([], 'ios'), true],
    ['another platform', { platform: 'ios' }, viewer([], 'android'), false],
    ['a platform, the request naming none', { platform: 'ios' }, viewer([]), false],
    [
      'segment and platform: both hold',
      { segment: 'paying', platform: 'android' },
      viewer(['paying'], 'android'),
      true,
    ],
    [
      'segment and platform: the segment fails',
      { segment: 'paying', platform: 'android' },
      viewer([], 'android'),
      false,
    ],
    [
      'segment and platform: the platform fails',
      { segment: 'paying', platform: 'android' },
      viewer(['paying'], 'ios'),
      false,
    ],
  ])('%s', (_, audience, who, holds) => {
    expect(inAudience(audience, who)).toBe(holds);
  });
});

const DOCUMENT: OfferingsDocument = {
  current: 'standard',
  offerings: [
    {
      id: 'standard',
      description: '',
      metadata: {},
      packages: [{ id: '$rc_monthly', products: { ios: 'm' }, metadata: {} }],
    },
    {
      id: 'winback',
      description: '',
      metadata: {},
      packages: [{ id: '$rc_annual', products: { ios: 'y' }, metadata: {} }],
    },
    {
      id: 'android_intro',
      description: '',
      metadata: {},
      packages: [{ id: 'intro', products: { android: 'i' }, metadata: {} }],
    },
  ],
  placements: [
    {
      id: 'onboarding',
      rules: [
        { audience: { segment: 'churned' }, offering: 'winback' },
        { audience: { platform: 'android' }, offering: 'android_intro' },
        { audience: { segment: 'churned', platform: 'android' }, offering: 'standard' },
      ],
      default: 'standard',
    },
    { id: 'settings', rules: [], default: 'standard' },
  ],
};

const SWITCHES: RemoteSwitch[] = [
  {
    key: 'show_banner',
    type: 'boolean',
    description: '',
    value: false,
    rules: [{ audience: { segment: 'never_subscribed' }, value: true }],
  },
  { key: 'theme', type: 'json', description: '', value: { color: 'blue' }, rules: [] },
];

describe('offerings: what one user is shown, first matching rule or the default', () => {
  it.each<[string, Viewer, string, ChosenBy]>([
    ['no rule matches: the default', viewer(['paying'], 'ios'), 'standard', 'default'],
    ['the first rule', viewer(['churned'], 'ios'), 'winback', { rule: 0, audience: { segment: 'churned' } }],
    [
      'two rules match: the first wins',
      viewer(['churned'], 'android'),
      'winback',
      { rule: 0, audience: { segment: 'churned' } },
    ],
    ['a platform rule', viewer([], 'android'), 'android_intro', { rule: 1, audience: { platform: 'android' } }],
    ['no platform given: platform rules never match', viewer([]), 'standard', 'default'],
  ])('%s', (_, who, offering, chosenBy) => {
    const shown = shownTo(DOCUMENT, SWITCHES, who);
    expect(shown.placements.onboarding).toEqual({ offering_id: offering, guide_page: null, chosen_by: chosenBy });
    expect(shown.placements.settings).toEqual({ offering_id: 'standard', guide_page: null, chosen_by: 'default' });
    expect(shown.current_offering_id).toBe('standard');
  });

  it.each<[string, Viewer, unknown, ChosenBy]>([
    ['a rule', viewer(['never_subscribed']), true, { rule: 0, audience: { segment: 'never_subscribed' } }],
    ['the default', viewer(['paying']), false, 'default'],
  ])('a switch: %s', (_, who, value, chosenBy) => {
    const shown = shownTo(DOCUMENT, SWITCHES, who);
    expect(shown.switches.show_banner).toEqual({ value, chosen_by: chosenBy });
    expect(shown.switches.theme).toEqual({ value: { color: 'blue' }, chosen_by: 'default' });
  });

  it.each<[string, Viewer, string | null]>([
    ["no rule matches: the placement's", viewer([], 'ios'), 'welcome'],
    ["a rule naming one: the rule's", viewer(['churned'], 'ios'), 'come_back'],
    ["a rule naming none: the placement's", viewer([], 'android'), 'welcome'],
  ])('a guide page: %s', (_, who, guide) => {
    const guided: OfferingsDocument = {
      ...DOCUMENT,
      placements: [
        {
          id: 'onboarding',
          rules: [
            {
              audience: { segment: 'churned' },
              offering: 'winback',
              guide_page: { id: 'come_back', pages: 1, purchase: true },
            },
            { audience: { platform: 'android' }, offering: 'android_intro' },
          ],
          default: 'standard',
          guide_page: { id: 'welcome', pages: 3, purchase: false },
        },
      ],
    };
    expect(shownTo(guided, [], who).placements.onboarding?.guide_page?.id ?? null).toBe(guide);
  });

  it('an app that has put nothing shows nothing', () => {
    expect(shownTo(undefined, [], viewer(['paying'], 'ios'))).toEqual({
      current_offering_id: null,
      placements: {},
      switches: {},
    });
  });
});
