/**
 * What one user is shown (pure): each placement's offering (and guide page) and each remote switch's value, chosen
 * by the first rule whose audience the user is in, else the default; and the rule that chose it,
 * so an operator can tell why a user saw what they saw.
 */
import type { Platform } from '../schemas/common.js';
import type { Audience, GuidePage, OfferingsDocument, RemoteSwitch } from '../schemas/offering.js';

/** What a rule's audience is matched against: the user's segments, and the platform of the request, when it names one. */
export interface Viewer {
  segments: ReadonlySet<string>;
  platform?: Platform;
}

/** The rule that chose: its place in the list and its audience, or the default. */
export type ChosenBy = { rule: number; audience: Audience } | 'default';

export const inAudience = (audience: Audience, viewer: Viewer): boolean =>
  (audience.segment === undefined || viewer.segments.has(audience.segment)) &&
  (audience.platform === undefined || audience.platform === viewer.platform);

/** The first rule whose audience holds the viewer, with what it chooses; else the default. */
export function firstMatch<T>(
  rules: readonly { audience: Audience }[],
  choose: (at: number) => T,
  fallback: T,
  viewer: Viewer,
): { chosen: T; chosen_by: ChosenBy } {
  const at = rules.findIndex((rule) => inAudience(rule.audience, viewer));
  if (at < 0) return { chosen: fallback, chosen_by: 'default' };
  return { chosen: choose(at), chosen_by: { rule: at, audience: rules[at]!.audience } };
}

export interface ShownPlacement {
  offering_id: string;
  /** The chosen rule's guide page, else the placement's; null: none. */
  guide_page: GuidePage | null;
  chosen_by: ChosenBy;
}

export interface ShownSwitch {
  value: unknown;
  chosen_by: ChosenBy;
}

export interface ShownToViewer {
  current_offering_id: string | null;
  placements: Record<string, ShownPlacement>;
  switches: Record<string, ShownSwitch>;
}

/** Each placement's offering and each switch's value for this viewer; an app without offerings shows none. */
export function shownTo(
  document: OfferingsDocument | undefined,
  switches: readonly RemoteSwitch[],
  viewer: Viewer,
): ShownToViewer {
  const placements: Record<string, ShownPlacement> = {};
  for (const placement of document?.placements ?? []) {
    const fallback = placement.guide_page ?? null;
    const { chosen, chosen_by } = firstMatch(
      placement.rules,
      (at) => ({ offering_id: placement.rules[at]!.offering, guide_page: placement.rules[at]!.guide_page ?? fallback }),
      { offering_id: placement.default, guide_page: fallback },
      viewer,
    );
    placements[placement.id] = { ...chosen, chosen_by };
  }
  const values: Record<string, ShownSwitch> = {};
  for (const entry of switches) {
    const { chosen, chosen_by } = firstMatch(entry.rules, (at) => entry.rules[at]!.value, entry.value, viewer);
    values[entry.key] = { value: chosen, chosen_by };
  }
  return { current_offering_id: document?.current ?? null, placements, switches: values };
}
