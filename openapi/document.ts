/**
 * Builds the OpenAPI 3.1 document of the three APIs from lib/routes.ts (paths, methods), each
 * route's endpoint declaration (functions/<api>/<name>.ts: its schemas, answers, error kinds,
 * header rule, whether it acts on a user), the words and examples of openapi/operations.ts, and the
 * error table (lib/core/errors.ts). `npm run openapi` writes it to docs/openapi.json;
 * test/unit/openapi.test.ts checks that file is what this builds.
 */
import { fileURLToPath } from 'node:url';
import * as z from 'zod/mini';
import { registry, toJSONSchema } from 'zod/v4/core';
import { ERRORS, type ErrorKind } from '../lib/core/errors.js';
import {
  type EndpointDeclaration,
  type MobileDeclaration,
  mobileRulesOf,
  type SubscriptionsDeclaration,
} from '../lib/http/declaration.js';
import { isDingYuePath } from '../lib/http/dingyue.js';
import type { ApiName } from '../lib/http/envelopes.js';
import { MOBILE_HEADER_RULES } from '../lib/http/mobile-headers.js';
import { ROUTES, type Route } from '../lib/routes.js';
import { appIdSchema } from '../lib/schemas/common.js';
import { DOCUMENTED_BODIES, RESPONSES } from '../lib/schemas/documented.js';
import { freeFormReportBody } from '../lib/schemas/mobile.js';
import { productSchema } from '../lib/schemas/product.js';
import {
  adsInfoSchema,
  attributionSchema,
  errorDetailSchema,
  mobileErrorSchema,
  mobileSuccessSchema,
  receivedNotificationResponseSchema,
  revenueStatisticsSchema,
  segmentInfoSchema,
  subscriptionMetricsSchema,
  subscriptionsErrorSchema,
} from '../lib/schemas/responses.js';
import {
  createdSubscription,
  paginationSchema,
  subscriptionDetail,
  subscriptionListItem,
  verificationResult,
} from '../lib/schemas/subscription.js';
import { deliveryViewSchema } from '../lib/schemas/webhook.js';
import { declarationsOf } from './declarations.js';
import { type OperationText, operationTextOf } from './operations.js';

type Json = Record<string, unknown>;

const SCHEMAS = '#/components/schemas/';
const ref = (name: string) => ({ $ref: `${SCHEMAS}${name}` });

/** Schemas every response may name: components, referenced wherever they appear. */
const NAMED_OUTPUT: [z.ZodMiniType, string][] = [
  [subscriptionListItem, 'SubscriptionListItem'],
  [subscriptionDetail, 'SubscriptionDetail'],
  [createdSubscription, 'CreatedSubscription'],
  [verificationResult, 'VerificationResult'],
  [paginationSchema, 'Pagination'],
  [productSchema, 'Product'],
  [revenueStatisticsSchema, 'RevenueStatistics'],
  [subscriptionMetricsSchema, 'SubscriptionMetrics'],
  [segmentInfoSchema, 'SegmentInfo'],
  [attributionSchema, 'Attribution'],
  [adsInfoSchema, 'AdsInfo'],
  [errorDetailSchema, 'ErrorDetail'],
  [mobileSuccessSchema, 'MobileSuccess'],
  [receivedNotificationResponseSchema, 'ReceivedNotificationResponse'],
  [deliveryViewSchema, 'WebhookDelivery'],
];
/** Request bodies shared by several operations get one name. */
const NAMED_INPUT: [z.ZodMiniType, string][] = [[freeFormReportBody, 'FreeFormReport']];

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  304: 'Not modified',
  400: 'Bad request',
  401: 'Not authenticated',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict',
  413: 'Payload too large',
  429: 'Rate limit exceeded',
  500: 'Internal error',
  502: 'Function failed or timed out',
  503: 'Service unavailable',
};

/** Statuses API Gateway may answer itself on any operation (throttling, oversize body, a failed function). */
const GATEWAY_STATUSES = new Set([413, 429, 500, 502]);

/**
 * What every store notification route can answer: the store's notification refused (400), a body
 * over 64 KB (413, the handler's own or the gateway's), the stage throttle (429), and what the
 * store retries (5xx). No API key, so no key errors and no per-key rate limit.
 */
const NOTIFICATION_ERRORS: ErrorKind[] = [
  'INVALID_NOTIFICATION',
  'PAYLOAD_TOO_LARGE',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
  'FUNCTION_TIMED_OUT',
  'SERVICE_UNAVAILABLE',
];

/** The declaration's header and user-token rules, for a route of the mobile API. */
const mobileRules = (declaration: EndpointDeclaration) => mobileRulesOf(declaration as MobileDeclaration);

/** The path of every store notification route names the app, which the wrapper checks (lib/http/endpoint.ts). */
const NOTIFICATION_PATH = z.strictObject({ app_id: appIdSchema });

/** Error kinds every route of an API can answer, before the route's own (its declaration's). */
function commonErrors(route: Route, declaration: EndpointDeclaration): ErrorKind[] {
  if (route.api === 'notifications') return NOTIFICATION_ERRORS;
  const all: ErrorKind[] = [
    'INVALID_PARAMETER',
    'API_KEY_MISSING',
    'INVALID_API_KEY',
    'PAYLOAD_TOO_LARGE',
    'RATE_LIMITED',
    'INTERNAL_ERROR',
    'FUNCTION_TIMED_OUT',
    'SERVICE_UNAVAILABLE',
  ];
  if (route.api === 'subscriptions') return all;
  return [
    ...all,
    'MISSING_REQUIRED_HEADER',
    'FORBIDDEN',
    ...(mobileRules(declaration).actsOnUser ? (['USER_TOKEN_MISSING', 'INVALID_USER_TOKEN'] as ErrorKind[]) : []),
  ];
}

const codeOf = (kind: ErrorKind): string => {
  const entry = ERRORS[kind];
  return 'code' in entry ? entry.code : kind;
};

function errorExample(api: ApiName, kind: ErrorKind): Json {
  const { status, message } = ERRORS[kind];
  const code = codeOf(kind);
  const retryable = ['RATE_LIMITED', 'SERVICE_UNAVAILABLE', 'CONCURRENT_MODIFICATION'].includes(kind)
    ? { retryable: true }
    : {};
  const requestId = status >= 500 ? { request_id: 'c0a8012e-5b1d-4c3a-9f2e-6d7b8a9c0d1e' } : {};
  const details =
    kind === 'INVALID_PARAMETER' && api === 'subscriptions'
      ? { details: [{ path: 'body.price', message: 'must be at most 1000000' }] }
      : {};
  return api === 'mobile'
    ? { status: 'error', code, message, ...retryable, ...requestId }
    : { error: { code, message, ...details, ...retryable, ...requestId } };
}

const stringHeader = (description: string, required: boolean, example?: string): Json => ({
  description,
  required,
  schema: { type: 'string', ...(example ? { examples: [example] } : {}) },
});

const HEADERS: Record<string, Json> = {
  XRequestId: stringHeader('Id of this request in the logs.', true, 'c0a8012e-5b1d-4c3a-9f2e-6d7b8a9c0d1e'),
  XRequestIdUnlessGateway: stringHeader(
    'Id of this request in the logs (absent when API Gateway answers itself, e.g. when it throttles the stage).',
    false,
  ),
  RateLimit: stringHeader(
    "The caller's remaining requests and seconds until the window resets: the secret key's, or on the mobile API the user's (the sdk key's app and X-USER-ID).",
    true,
    '"standard";r=199;t=42',
  ),
  RateLimitPolicy: stringHeader(
    "The rate limit of the key's tier: requests per window of seconds (on the mobile API, per user).",
    true,
    '"standard";q=200;w=60',
  ),
  RateLimitIfAuthenticated: stringHeader(
    'As on a success, once the request was counted (mobile API: after the header rules, X-APP-ID and the user token).',
    false,
  ),
  RateLimitPolicyIfAuthenticated: stringHeader('As on a success, once the key was authenticated.', false),
  RetryAfter: stringHeader('Seconds to wait before retrying.', false, '42'),
  WWWAuthenticate: stringHeader('`Bearer`, when the Authorization header is missing or malformed.', false, 'Bearer'),
  ETag: stringHeader(
    'Strong validator of this body: send it as If-None-Match next time.',
    true,
    '"dC6Qx0rq3S9kFh2u5Yl4bN7pWm1"',
  ),
  CacheControl: stringHeader(
    '`private, no-cache`: no shared cache keeps it; a client revalidates it.',
    true,
    'private, no-cache',
  ),
};
const header = (name: string) => ({ $ref: `#/components/headers/${name}` });

function responseHeaders(status: number, api: ApiName, kinds: readonly ErrorKind[] = []): Json {
  const success = status < 400; // a 304 too: the request was counted
  // A store the app's budget may not ask now (docs/security.md#outbound-store-calls) says when.
  const retryAfter = status === 429 || status === 503 || kinds.includes('VERIFICATION_FAILED');
  if (api === 'notifications') {
    // No key, so no key's rate limit; Retry-After when the table or the gateway says when.
    return {
      'X-Request-Id': header(GATEWAY_STATUSES.has(status) ? 'XRequestIdUnlessGateway' : 'XRequestId'),
      ...(retryAfter ? { 'Retry-After': header('RetryAfter') } : {}),
    };
  }
  return {
    'X-Request-Id': header(GATEWAY_STATUSES.has(status) ? 'XRequestIdUnlessGateway' : 'XRequestId'),
    RateLimit: header(success ? 'RateLimit' : 'RateLimitIfAuthenticated'),
    'RateLimit-Policy': header(success ? 'RateLimitPolicy' : 'RateLimitPolicyIfAuthenticated'),
    ...(retryAfter ? { 'Retry-After': header('RetryAfter') } : {}),
    ...(status === 401 && api === 'subscriptions' ? { 'WWW-Authenticate': header('WWWAuthenticate') } : {}),
  };
}

/**
 * The error responses of a route, one per status, each listing the codes it may carry. Identical
 * responses are one component: named after the API and status when only the API's common kinds
 * reach it, else after the first route answering it.
 */
function errorResponses(
  route: Route,
  declaration: EndpointDeclaration,
  shared: Map<string, { name: string; response: Json }>,
): Json {
  const common = commonErrors(route, declaration);
  // A path parameter its schema refuses is answered with the declared 404.
  const { paramsNotFound, errors = [] } = declaration as SubscriptionsDeclaration;
  const kinds = [...new Set([...common, ...(paramsNotFound ? [paramsNotFound] : []), ...errors])];
  const byStatus = new Map<number, ErrorKind[]>();
  for (const kind of kinds) byStatus.set(ERRORS[kind].status, [...(byStatus.get(ERRORS[kind].status) ?? []), kind]);
  const responses: Json = {};
  for (const [status, statusKinds] of [...byStatus].sort(([a], [b]) => a - b)) {
    const codes = [...new Set(statusKinds.map(codeOf))];
    const ofApi = envelopeWithCodes(route.api, codes);
    const schema = GATEWAY_STATUSES.has(status) ? { anyOf: [ofApi, ref('GatewayError')] } : ofApi;
    const response = {
      description: `${STATUS_TEXT[status]}: ${codes.join(', ')}.`,
      headers: responseHeaders(status, route.api, statusKinds),
      content: {
        'application/json': {
          schema,
          examples: Object.fromEntries(
            statusKinds.map((kind) => [kind, { summary: ERRORS[kind].message, value: errorExample(route.api, kind) }]),
          ),
        },
      },
    };
    const key = JSON.stringify(response);
    let entry = shared.get(key);
    if (!entry) {
      const api = {
        mobile: 'Mobile',
        subscriptions: 'Subscriptions',
        notifications: 'Notifications',
        revenuecat: 'RevenueCat',
      }[route.api];
      const name = statusKinds.every((kind) => common.includes(kind))
        ? `${api}Error${status}`
        : `${route.name.replace(/V2$/, '')}Error${status}`;
      entry = { name, response };
      shared.set(key, entry);
    }
    responses[String(status)] = { $ref: `#/components/responses/${entry.name}` };
  }
  return responses;
}

/** The API's error envelope with `code` limited to `codes` (a copy, not an allOf: tools render and check it plainly). */
function envelopeWithCodes(api: ApiName, codes: string[]): Json {
  const envelope = toJSONSchema(api === 'mobile' ? mobileErrorSchema : subscriptionsErrorSchema, {
    target: 'draft-2020-12',
    io: 'output',
  }) as Json & { properties: Record<string, Json & { properties: Record<string, Json> }> };
  const { $schema: _schema, ...schema } = envelope;
  const fields = api === 'mobile' ? schema.properties : schema.properties.error!.properties;
  fields.code = { type: 'string', enum: codes };
  if (api !== 'mobile') schema.properties.error!.properties.details!.items = ref('ErrorDetail');
  return schema;
}

interface ConvertedParts {
  properties: Record<string, Json>;
  required: string[];
}

function convertInline(schema: z.ZodMiniType): ConvertedParts {
  const json = toJSONSchema(schema, { target: 'draft-2020-12', unrepresentable: 'any', io: 'input' }) as Json;
  return {
    properties: (json.properties ?? {}) as Record<string, Json>,
    required: (json.required ?? []) as string[],
  };
}

function parametersOf(where: 'path' | 'query', schema: z.ZodMiniType | undefined): Json[] {
  if (!schema) return [];
  const { properties, required } = convertInline(schema);
  const shape = (schema._zod.def as { shape?: Record<string, z.ZodMiniType> }).shape ?? {};
  return Object.entries(properties).map(([name, property]) => {
    // A default behind a transform (limit: digits, then a number) is lost in the conversion: its parse says it.
    const parsed = shape[name]?.safeParse(undefined);
    const fallback = parsed?.success && parsed.data !== undefined && !('default' in property) ? parsed.data : undefined;
    return {
      name,
      in: where,
      required: where === 'path' || required.includes(name),
      schema: fallback === undefined ? property : { ...property, default: String(fallback) },
    };
  });
}

/** The mobile route's header rule as header parameters (X-API-KEY and X-USER-TOKEN are security schemes). */
function mobileHeaderParameters(declaration: EndpointDeclaration): Json[] {
  const rule = MOBILE_HEADER_RULES[mobileRules(declaration).headers] as readonly string[];
  const parameters: Json[] = [];
  const add = (name: string, key: string) => {
    const required = rule.includes(name);
    // X-PLATFORM is read whenever it is sent; the others of the common rule are only required.
    if (required || name === 'X-PLATFORM') parameters.push({ $ref: `#/components/parameters/${key}` });
  };
  add('X-USER-ID', 'XUserId');
  add('User-Agent', 'UserAgent');
  add('X-APP-ID', 'XAppId');
  add('X-PLATFORM', rule.includes('X-PLATFORM') ? 'XPlatform' : 'XPlatformOptional');
  add('X-VERSION', 'XVersion');
  return parameters;
}

const PARAMETERS: Record<string, Json> = {
  IfNoneMatch: {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description: 'The ETag of the answer the client holds: a 304 without a body when it is still the answer.',
    schema: { type: 'string' },
    example: '"dC6Qx0rq3S9kFh2u5Yl4bN7pWm1"',
  },
  XUserId: {
    name: 'X-USER-ID',
    in: 'header',
    required: true,
    description: 'The current user of the app (at most 256 characters).',
    schema: { type: 'string', minLength: 1, maxLength: 256 },
    example: 'user_123',
  },
  UserAgent: {
    name: 'User-Agent',
    in: 'header',
    required: true,
    schema: { type: 'string', minLength: 1 },
    example: 'MyApp/2.1 (iPhone; iOS 18.1)',
  },
  XAppId: {
    name: 'X-APP-ID',
    in: 'header',
    required: true,
    description: 'The app of the API key (403 FORBIDDEN otherwise).',
    schema: { type: 'string', minLength: 1 },
    example: 'app_0123456789abcdef',
  },
  XPlatform: {
    name: 'X-PLATFORM',
    in: 'header',
    required: true,
    description: '`iOS` or `Android`, in any case.',
    schema: { type: 'string', pattern: '^([iI][oO][sS]|[aA][nN][dD][rR][oO][iI][dD])$' },
    example: 'iOS',
  },
  XPlatformOptional: {
    name: 'X-PLATFORM',
    in: 'header',
    required: false,
    description: '`iOS` or `Android`, in any case; checked when sent.',
    schema: { type: 'string', pattern: '^([iI][oO][sS]|[aA][nN][dD][rR][oO][iI][dD])$' },
    example: 'iOS',
  },
  XVersion: {
    name: 'X-VERSION',
    in: 'header',
    required: true,
    description: 'SDK version.',
    schema: { type: 'string', minLength: 1 },
    example: '1.0.0',
  },
};

/** Whether a request body is required: its schema has required fields (an absent body is validated as `{}`). */
const bodyRequired = (schema: z.ZodMiniType): boolean => convertInline(schema).required.length > 0;

const TAGS: Record<ApiName, string> = {
  subscriptions: 'Subscriptions',
  mobile: 'Mobile reporting',
  notifications: 'Store notifications',
  revenuecat: 'RevenueCat SDKs',
};

function securityOf(route: Route, declaration: EndpointDeclaration): Json[] {
  // A store sends no key: each notification route authenticates what it receives (its description says how).
  if (route.api === 'notifications') return [];
  if (route.api === 'subscriptions') return [{ secretKey: [] }];
  return mobileRules(declaration).actsOnUser ? [{ sdkKey: [] }, { sdkKey: [], userToken: [] }] : [{ sdkKey: [] }];
}

function mobileDescription(declaration: EndpointDeclaration, text: OperationText): string {
  const policy = mobileRules(declaration);
  const rule =
    policy.headers === 'identity'
      ? 'Headers: X-API-KEY, X-USER-ID and X-APP-ID (X-PLATFORM is checked when sent).'
      : 'Headers: X-API-KEY and every common header (X-USER-ID, User-Agent, X-APP-ID, X-PLATFORM, X-VERSION, ' +
        'Accept, and Content-Type: application/json with a body); the first one missing is a 400 ' +
        'MISSING_REQUIRED_HEADER.';
  const token = !policy.actsOnUser
    ? ''
    : ' An app that requires signed user tokens also needs X-USER-TOKEN (401 MISSING_REQUIRED_HEADER or ' +
      'INVALID_USER_TOKEN without a valid one).';
  return [text.description, `${rule}${token}`].filter(Boolean).join('\n\n');
}

export interface OpenApiDocument {
  openapi: string;
  info: Json;
  paths: Record<string, Record<string, Json>>;
  components: Json & { schemas: Record<string, Json> };
  [key: string]: unknown;
}

/** The schemas a registry holds as OpenAPI components, referencing one another. */
function componentSchemas(entries: [z.ZodMiniType, string][], io: 'input' | 'output'): Record<string, Json> {
  const named = registry<{ id: string }>();
  for (const [schema, id] of entries) named.add(schema, { id });
  const { schemas } = toJSONSchema(named, {
    target: 'draft-2020-12',
    unrepresentable: 'any',
    io,
    uri: (id) => `${SCHEMAS}${id}`,
  }) as { schemas: Record<string, Json> };
  return Object.fromEntries(
    Object.entries(schemas).map(([id, { $schema: _schema, $id: _id, ...schema }]) => [id, schema]),
  );
}

/** The body of a route's success: the declared payload in its API's envelope. */
function successBody(route: Route, declaration: EndpointDeclaration): z.ZodMiniType {
  if (route.api === 'notifications') return receivedNotificationResponseSchema;
  const { response, pagination } = declaration as SubscriptionsDeclaration;
  if (route.api === 'mobile') {
    return response ? z.extend(mobileSuccessSchema, { data: RESPONSES[response] }) : mobileSuccessSchema;
  }
  if (!response) throw new Error(`${route.handler} declares no response`);
  return z.strictObject({
    data: RESPONSES[response],
    ...(pagination ? { pagination: RESPONSES[pagination] } : {}),
  });
}

export async function buildDocument(): Promise<OpenApiDocument> {
  const declarations = await declarationsOf(ROUTES);
  const outputs: [z.ZodMiniType, string][] = [...NAMED_OUTPUT];
  const inputs: [z.ZodMiniType, string][] = [...NAMED_INPUT];
  const nameOf = (list: [z.ZodMiniType, string][], schema: z.ZodMiniType, fallback: string): string => {
    const found = list.find(([s]) => s === schema);
    if (found) return found[1];
    list.push([schema, fallback]);
    return fallback;
  };

  /** A V2 route answers as its V1 route: one schema, one name. */
  const successSchemas = new Map<string, z.ZodMiniType>();
  const successSchemaName = (route: Route, declaration: EndpointDeclaration, status: number): string => {
    const base = route.name.replace(/V2$/, '');
    const key = `${base}${status === 201 ? 'Created' : ''}Response`;
    let schema = successSchemas.get(key);
    if (!schema) {
      schema = successBody(route, declaration);
      successSchemas.set(key, schema);
    }
    return nameOf(outputs, schema, key);
  };

  const sharedResponses = new Map<string, { name: string; response: Json }>();
  const paths: Record<string, Record<string, Json>> = {};
  // The SDK dialects are those SDKs' APIs, not ours: docs/sdk-dingyue.md and docs/sdk-revenuecat.md describe them.
  for (const route of ROUTES.filter((candidate) => !isDingYuePath(candidate.path) && candidate.api !== 'revenuecat')) {
    const declaration = declarations.get(route.name)!;
    const text = operationTextOf(route.name);
    if (!text) throw new Error(`openapi/operations.ts describes no operation for route ${route.name}`);
    const {
      params,
      query,
      body,
      documentedBody,
      conditional,
      statuses = [200],
    } = declaration as SubscriptionsDeclaration;
    const described = Object.keys(text.success).map(Number);
    if (described.length !== statuses.length || !statuses.every((status) => described.includes(status))) {
      throw new Error(
        `openapi/operations.ts describes statuses ${described} of ${route.name}, which answers ${statuses}`,
      );
    }
    const responses: Json = {};
    const validated = conditional ? { ETag: header('ETag'), 'Cache-Control': header('CacheControl') } : {};
    for (const status of statuses) {
      const { description, example } = text.success[status]!;
      responses[String(status)] = {
        description,
        headers: { ...responseHeaders(status, route.api), ...validated },
        content: { 'application/json': { schema: ref(successSchemaName(route, declaration, status)), example } },
      };
    }
    if (conditional) {
      responses['304'] = {
        description: 'Not modified: If-None-Match names the ETag of the answer this request would get. No body.',
        headers: { ...responseHeaders(304, route.api), ...validated },
      };
    }
    Object.assign(responses, errorResponses(route, declaration, sharedResponses));

    const parameters = [
      ...parametersOf('path', route.api === 'notifications' ? NOTIFICATION_PATH : params),
      ...parametersOf('query', query),
      ...(route.api === 'mobile' ? mobileHeaderParameters(declaration) : []),
      ...(conditional ? [{ $ref: '#/components/parameters/IfNoneMatch' }] : []),
    ];
    const shown = documentedBody ? DOCUMENTED_BODIES[documentedBody] : body;
    const requestBody = shown
      ? {
          requestBody: {
            // An absent body is validated as `{}` by the schema the handler parses.
            required: bodyRequired(body ?? shown),
            content: {
              'application/json': {
                schema: ref(nameOf(inputs, shown, `${route.name.replace(/V2$/, '')}Request`)),
                ...(text.bodyExample !== undefined ? { example: text.bodyExample } : {}),
              },
            },
          },
        }
      : {};
    const v2 = route.name.endsWith('V2') ? ' (V2)' : '';
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = {
      operationId: route.name,
      summary: `${text.summary}${v2}`,
      ...(route.api === 'mobile'
        ? { description: mobileDescription(declaration, text) }
        : text.description
          ? { description: text.description }
          : {}),
      tags: [TAGS[route.api]],
      security: securityOf(route, declaration),
      ...(parameters.length > 0 ? { parameters } : {}),
      ...requestBody,
      responses,
    };
  }

  const inputNames = new Set(inputs.map(([, name]) => name));
  const outputSchemas = componentSchemas(outputs, 'output');
  const inputSchemas = componentSchemas(inputs, 'input');
  for (const name of Object.keys(inputSchemas)) {
    if (!inputNames.has(name)) throw new Error(`request schema ${name} would share a name with a response schema`);
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Subscription backend',
      version: '1.0.0',
      summary:
        'Subscription management API (Bearer secret key), mobile reporting API (X-API-KEY sdk key) and the ' +
        "stores' notification routes (no key: the notification is verified).",
      description: INFO_DESCRIPTION,
    },
    servers: [
      {
        url: '{base_url}',
        description: 'The API Gateway stage (`ApiUrl` output of `cdk deploy`), or `npm start` on this machine.',
        variables: { base_url: { default: 'http://127.0.0.1:3000' } },
      },
    ],
    tags: [
      { name: 'Subscriptions', description: 'Subscription management API under `/v1/subscriptions`.' },
      { name: 'Mobile reporting', description: 'Mobile reporting API, called by app SDKs.' },
      {
        name: 'Store notifications',
        description:
          'Where the App Store, Google Play (through Pub/Sub) and the test store tell the backend what happened to ' +
          'a purchase, under `/notifications`. No API key (a store cannot send one): the App Store and the test ' +
          "store's notifications are signed payloads, verified before anything is read from them; Google's push " +
          'carries a Google-signed OIDC bearer token for the audience configured for the app, and the state is ' +
          'then read from Google. A notification that fails verification is a 400 `INVALID_NOTIFICATION` and ' +
          'changes nothing; what may succeed later is a 5xx, so the store delivers it again.',
      },
    ],
    paths,
    components: {
      securitySchemes: {
        secretKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'A secret key of the app (`admin keys create --kind secret`), as `Authorization: Bearer <key>`.',
        },
        sdkKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-KEY',
          description:
            'An sdk key of the app; absent: 401 MISSING_REQUIRED_HEADER, unknown or revoked: 401 INVALID_API_KEY.',
        },
        userToken: {
          type: 'apiKey',
          in: 'header',
          name: 'X-USER-TOKEN',
          description:
            "The app server's signed token for X-USER-ID (`v1.<exp>.<signature>`), required only by apps that " +
            'require signed user tokens.',
        },
      },
      parameters: PARAMETERS,
      headers: HEADERS,
      responses: Object.fromEntries(
        [...sharedResponses.values()]
          .sort((a, b) => a.name.localeCompare(b.name))
          .map(({ name, response }) => [name, response]),
      ),
      schemas: {
        ...outputSchemas,
        ...inputSchemas,
        GatewayError: {
          description:
            "API Gateway's own answer (throttling, an oversize body, a failed function): one body carrying both " +
            'envelopes, so either client reads its own keys.',
          type: 'object',
          properties: {
            error: {
              type: 'object',
              properties: { code: { type: 'string' }, message: { type: 'string' }, request_id: { type: 'string' } },
              required: ['code', 'message'],
            },
            status: { const: 'error' },
            code: { type: 'string' },
            message: { type: 'string' },
            request_id: { type: 'string' },
          },
          required: ['error', 'status', 'code', 'message'],
        },
      },
    },
  };
}

const INFO_DESCRIPTION = `The APIs of the self-hosted subscription backend, generated from \`lib/routes.ts\` and the zod schemas the handlers validate with (\`npm run openapi\`).

- **Subscription management API** (\`/v1/subscriptions...\`): \`Authorization: Bearer <secret key>\`. Successes wrap their payload in \`data\`; errors are \`{"error": {"code", "message", "details"?}}\`.
- **Mobile reporting API** (every other path): \`X-API-KEY\` and the common headers. Successes are \`{"status": "success", "message", "data"?}\`; errors are \`{"status": "error", "code", "message"}\`.
- **Store notifications** (\`/notifications/{store}/{app_id}\`): no key; each route verifies the notification itself. Answers in the subscription API's envelopes.

Errors carry \`retryable: true\` when the same request may succeed later (429, 503, some 409s), and a \`request_id\` on 5xx answers. A path that is no endpoint's is answered 404 \`ROUTE_NOT_FOUND\`, and a method a path does not serve 405 \`METHOD_NOT_ALLOWED\` with an \`Allow\` header, both in the envelope of the API the path belongs to. Every answer authenticated by a key carries the \`RateLimit-Policy\` of the key's tier, and every counted one the \`RateLimit\` of the caller's window: the secret key's, or on the mobile API the user's (\`X-USER-ID\` of the key's app).`;

/** Where `npm run openapi` writes the document; `npm start` serves it from there. */
export const DOCUMENT_PATH = fileURLToPath(new URL('../docs/openapi.json', import.meta.url));

/** The committed file's exact text: two-space JSON and a final newline. */
export const serializeDocument = (document: OpenApiDocument): string => `${JSON.stringify(document, null, 2)}\n`;
