/**
 * What an endpoint is, declared once beside its handler: each functions/<api>/<name>.ts exports
 * its declaration as `endpoint` and passes it to its API's wrapper (lib/http/endpoint.ts). The
 * wrapper applies the request's part at run time (schemas, header rule, user token, conditional
 * requests); the OpenAPI document (openapi/) reads the rest at build time (answers, error kinds),
 * and the wrapper's types hold the handler's answer to the declared one. What is for the document
 * alone is a name or a string, so a bundle carries no schema it never runs.
 */
import type * as z from 'zod/mini';
import type { ErrorKind } from '../core/errors.js';
import type { DocumentedBodyName, ResponseName } from '../schemas/documented.js';
import type { ConditionalAnswer } from './conditional.js';
import type { MobileHeaderRule } from './mobile-headers.js';

/** The part of a request every API's endpoints declare alike. */
export interface RequestDeclaration {
  params?: z.ZodMiniType;
  query?: z.ZodMiniType;
  /** Query parameters a client repeats (`?id=a&id=b`): read as a list each; any other given twice is refused. */
  queryLists?: readonly string[];
  body?: z.ZodMiniType;
  /** A path parameter that fails its schema names a resource that cannot exist: this 404. */
  paramsNotFound?: ErrorKind;
  /**
   * Answers an ETag, and 304 to a matching If-None-Match: `conditionalResponse` of
   * lib/http/conditional.ts, named here so that only the bundles of such endpoints carry it.
   */
  conditional?: ConditionalAnswer;
  /** What a success answers under `data` (lib/schemas/documented.ts RESPONSES); none: no `data`. */
  response?: ResponseName;
  /** Error kinds this endpoint answers besides those every endpoint of its API can (openapi/document.ts). */
  errors?: readonly ErrorKind[];
  /** The request body as the document shows it, where the handler checks more than `body` says. */
  documentedBody?: DocumentedBodyName;
}

/** An endpoint of the subscription management API. */
export interface SubscriptionsDeclaration extends RequestDeclaration {
  /** The statuses of a success (default: 200 alone); the handler's answer names the one it is. */
  statuses?: readonly (200 | 201 | 202)[];
  /** A page of a list: what it answers beside `data` (RESPONSES). */
  pagination?: ResponseName;
}

/** An endpoint of the mobile reporting API. */
export interface MobileDeclaration extends RequestDeclaration {
  /** The headers it requires besides X-API-KEY (lib/http/mobile-headers.ts); default `common`. */
  headers?: MobileHeaderRule;
  /**
   * Whether it reads or changes data of the X-USER-ID user, so that an app requiring signed user
   * tokens refuses it without a valid X-USER-TOKEN; default true (fail closed).
   */
  actsOnUser?: boolean;
  /**
   * Its call in the DingYue SDK's dialect, under /dingyue (lib/routes.ts): the request body as the
   * SDK builds it, and the headers it must carry (default: the `dingyue` rule, what the SDK sends). Its handler then
   * passes a third argument to the wrapper, which answers the SDK's envelope (lib/http/dingyue.ts).
   */
  dingyue?: { body?: z.ZodMiniType; headers?: MobileHeaderRule };
}

/** An endpoint of RevenueCat's SDK dialect (lib/http/revenuecat.ts). */
export interface RevenueCatDeclaration extends RequestDeclaration {
  /**
   * Where the request names its user (the SDKs' app_user_id): the path's, or the body's; a logIn's
   * is the body's `new_app_user_id`, the user it acts as from now on. None: it reads only what the
   * app shows every user (no user token; counted by the request's address, revenuecatAddressBucket).
   */
  user?: 'path' | 'body' | 'body.new_app_user_id';
  /** Reads the store of the request's X-Platform (a purchase): a request without a known one is refused. */
  platform?: true;
  /** The statuses of a success (default: 200 alone); the handler's answer names the one it is (204: no body). */
  statuses?: readonly (200 | 201 | 204)[];
}

/**
 * A store notification route. Its wrapper reads the app from the path and the store's decoder
 * the body, the same way on every route: what differs is only what the document shows.
 */
export interface NotificationDeclaration {
  documentedBody: DocumentedBodyName;
}

export type EndpointDeclaration =
  | SubscriptionsDeclaration
  | MobileDeclaration
  | RevenueCatDeclaration
  | NotificationDeclaration;

/** Every command on one subscription reads it first, and may find it gone, in the wrong state or changed meanwhile. */
export const CHANGE_ERRORS = [
  'SUBSCRIPTION_NOT_FOUND',
  'SUBSCRIPTION_EXPIRED',
  'INVALID_STATUS_TRANSITION',
  'CONCURRENT_MODIFICATION',
] as const satisfies readonly ErrorKind[];

/** A purchase verified with its store, through either API. */
export const VERIFY_ERRORS = [
  'INVALID_RECEIPT',
  'RECEIPT_ALREADY_USED',
  'VERIFICATION_FAILED',
  'SUBSCRIPTION_EXPIRED',
  'INVALID_STATUS_TRANSITION',
  'CONCURRENT_MODIFICATION',
] as const satisfies readonly ErrorKind[];

/** Reports update the user's profile with a conditional write that a concurrent report can beat. */
export const REPORT_ERRORS = ['CONCURRENT_MODIFICATION'] as const satisfies readonly ErrorKind[];

/** The header rule and user-token rule of a mobile endpoint, with the defaults its declaration leaves out. */
export const mobileRulesOf = (
  endpoint: MobileDeclaration,
): Required<Pick<MobileDeclaration, 'headers' | 'actsOnUser'>> => ({
  headers: endpoint.headers ?? 'common',
  actsOnUser: endpoint.actsOnUser ?? true,
});
