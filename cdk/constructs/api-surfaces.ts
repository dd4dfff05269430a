/**
 * Which REST API and which nested stack serve which routes: each surface owns the API paths under
 * its prefixes (the API Gateway resources, methods, functions, roles and permissions of those
 * routes) in one of the REST APIs; the ancestors of the prefixes (`/v1`, `/v2`) belong to the parent
 * stack, which every surface of that REST API may build on.
 *
 * A route moved from one surface to another is created in the new nested stack before CloudFormation
 * deletes it from the old one, and API Gateway refuses a second resource or method on the same
 * path: keep a route where it is, and give a new group of routes a prefix (or a surface) of its own.
 * test/cdk/quotas.test.ts fails when a surface nears a CloudFormation quota, at three times its routes.
 */
import { REVENUECAT_PREFIXES, REVENUECAT_SUBSCRIBERS_PATH } from '../../lib/http/revenuecat.js';
import type { Route } from '../../lib/routes.js';

/**
 * The REST APIs: API Gateway counts resources per REST API (300), so a dialect with paths of its
 * own is a REST API of its own, each with its stage, logs, throttles and gateway responses
 * (./api.ts). Through `-c apiDomainName` both are at the domain's root: the dialect's prefixes are
 * routed to its REST API, every other path to the service's (docs/sdk-revenuecat.md).
 */
export const REST_APIS = {
  service: {
    id: 'RestApi',
    name: 'subscription-backend',
    description: 'Subscription management API (/v1/subscriptions) and mobile reporting API',
  },
  revenuecat: {
    id: 'RevenueCatRestApi',
    name: 'subscription-backend-revenuecat',
    description: "RevenueCat's SDK dialect: /v1/subscribers, /v1/receipts, ...",
  },
} as const;
export type RestApiKey = keyof typeof REST_APIS;

export interface ApiSurfaceLayout {
  /** Construct id of the nested stack (stable: it names the stack's resources). */
  id: string;
  description: string;
  /** The REST API whose paths these are. */
  restApi: RestApiKey;
  /** Paths whose subtrees this surface owns; no prefix lies under another. */
  prefixes: readonly string[];
}

export const API_SURFACES: readonly ApiSurfaceLayout[] = [
  {
    id: 'SubscriptionsApi',
    description: 'Subscription management API: /v1/subscriptions',
    restApi: 'service',
    prefixes: ['/v1/subscriptions'],
  },
  {
    id: 'CustomersApi',
    description: 'Subscription management API: /v1/customers, /v1/webhooks, /v1/app',
    restApi: 'service',
    prefixes: ['/v1/customers', '/v1/webhooks', '/v1/app'],
  },
  {
    id: 'MobileReportsApi',
    description: 'Mobile reporting API: the endpoints with V1 and V2 paths, and the rest of /users',
    restApi: 'service',
    prefixes: [
      ...['/users', '/sessions', '/order', '/conversion', '/report'].flatMap((path) => [path, `/v2${path}`]),
      // The DingYue SDK's calls of these functions (lib/http/dingyue.ts).
      ...['/users', '/sessions', '/conversion', '/report'].map((path) => `/dingyue${path}`),
    ],
  },
  {
    id: 'MobileApi',
    description: 'Mobile reporting API: receipts, attribution, search ads, segments, ads info',
    restApi: 'service',
    prefixes: [
      '/receipt',
      '/attribution',
      '/searchads',
      '/segment',
      '/adsinfo',
      ...['/receipt', '/attribution', '/searchads', '/segment'].map((path) => `/dingyue${path}`),
    ],
  },
  {
    id: 'OfferingsApi',
    description: 'What apps show: /v1/offerings and the mobile /offerings, /v2/offerings',
    restApi: 'service',
    prefixes: ['/v1/offerings', '/offerings', '/v2/offerings'],
  },
  {
    id: 'StoreNotificationsApi',
    description: 'Store notification routes: /notifications',
    restApi: 'service',
    prefixes: ['/notifications'],
  },
  {
    id: 'RevenueCatApi',
    description: "RevenueCat's SDK dialect: a user's calls, /v1/subscribers",
    restApi: 'revenuecat',
    prefixes: [REVENUECAT_SUBSCRIBERS_PATH],
  },
  {
    id: 'RevenueCatAppApi',
    description: "RevenueCat's SDK dialect: purchases, the app's settings, reports, web billing",
    restApi: 'revenuecat',
    prefixes: REVENUECAT_PREFIXES.filter((prefix) => prefix !== REVENUECAT_SUBSCRIBERS_PATH),
  },
];

const under = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

/** The paths above the surfaces' prefixes (each prefix's ancestors but the root), built by the parent stack. */
export function sharedAncestors(layout: readonly ApiSurfaceLayout[] = API_SURFACES): string[] {
  const ancestors = new Set<string>();
  for (const prefix of layout.flatMap((surface) => surface.prefixes)) {
    const segments = prefix.split('/').filter(Boolean);
    for (let depth = 1; depth < segments.length; depth++) ancestors.add(`/${segments.slice(0, depth).join('/')}`);
  }
  return [...ancestors];
}

/**
 * The routes of each surface, in route table order. Throws for overlapping prefixes, for a route under
 * no prefix (name a surface for it here) and for a function whose routes fall in two surfaces (one
 * function is in one stack).
 */
export function routesBySurface(
  routes: readonly Route[],
  layout: readonly ApiSurfaceLayout[] = API_SURFACES,
): Map<ApiSurfaceLayout, Route[]> {
  const prefixes = layout.flatMap((surface) => surface.prefixes.map((prefix) => ({ surface, prefix })));
  for (const a of prefixes)
    for (const b of prefixes)
      if (a !== b && under(a.prefix, b.prefix))
        throw new Error(`API surface prefixes overlap: ${a.prefix}, ${b.prefix}`);
  const bySurface = new Map<ApiSurfaceLayout, Route[]>(layout.map((surface) => [surface, []]));
  const surfaceOfHandler = new Map<string, ApiSurfaceLayout>();
  for (const route of routes) {
    const owner = prefixes.find(({ prefix }) => under(route.path, prefix))?.surface;
    if (!owner)
      throw new Error(`${route.name}: ${route.path} is under no API surface (cdk/constructs/api-surfaces.ts)`);
    const other = surfaceOfHandler.get(route.handler);
    if (other && other !== owner)
      throw new Error(`${route.handler} serves routes of two API surfaces, ${other.id} and ${owner.id}`);
    surfaceOfHandler.set(route.handler, owner);
    bySurface.get(owner)!.push(route);
  }
  return bySurface;
}
