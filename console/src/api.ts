/**
 * The console's one way to the API: the secret key from this tab's session as a Bearer token, the
 * API's envelope unwrapped, and failures as ApiError values a page can show.
 */
import type { SubscriptionStatus } from '../../lib/domain/subscription-state';
import type { Platform } from '../../lib/schemas/common';
import { clearKey, readKey } from './session';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Seconds to wait, from Retry-After (429). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** The API's base URL, written into index.html at deploy ('' when the console and the API share an origin). */
export function apiBase(): string {
  const meta = document.querySelector<HTMLMetaElement>('meta[name="api-url"]');
  return (meta?.content ?? '').replace(/\/+$/, '');
}

/** Called when the API refuses the key: the app goes back to sign-in. */
let onUnauthorized: (message: string) => void = () => undefined;
export const whenUnauthorized = (handler: (message: string) => void) => {
  onUnauthorized = handler;
};

export type Query = Record<string, string | number | undefined>;

export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query))
    if (value !== undefined && value !== '') params.set(name, String(value));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

export async function request<T>(
  method: 'GET' | 'POST',
  path: string,
  options: { key?: string; body?: unknown } = {},
): Promise<T> {
  const key = options.key ?? readKey();
  let response: Response;
  try {
    response = await fetch(`${apiBase()}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${key ?? ''}`,
        Accept: 'application/json',
        ...(options.body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, 'NETWORK', 'The API cannot be reached. Check your connection and try again.');
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (response.ok) return body as T;
  const error = (body as { error?: { code?: string; message?: string } } | undefined)?.error;
  const code = error?.code ?? `HTTP_${response.status}`;
  if (response.status === 401) {
    if (options.key === undefined) {
      clearKey();
      onUnauthorized('The API refused your key. Sign in again.');
    }
    throw new ApiError(401, code, 'The API refused this key.');
  }
  if (response.status === 429) {
    const seconds = Number(response.headers.get('Retry-After') ?? '');
    const wait = Number.isFinite(seconds) && seconds > 0 ? Math.ceil(seconds) : 1;
    throw new ApiError(429, code, `Too many requests. Retry in ${wait} second${wait === 1 ? '' : 's'}.`, wait);
  }
  if (response.status >= 500)
    throw new ApiError(response.status, code, `The API failed (${code}). Try again in a moment.`);
  throw new ApiError(response.status, code, error?.message ?? `The API answered ${response.status}.`);
}

export const get = <T>(path: string, query?: Query) => request<T>('GET', withQuery(path, query));
export const post = <T>(path: string, body?: unknown) => request<T>('POST', path, { body });

/** `Listed` when it holds every value of `All`: a list that misses one fails to compile. */
type Complete<All, Listed extends readonly All[]> = [Exclude<All, Listed[number]>] extends [never] ? Listed : never;
const STATUSES = ['active', 'paused', 'pending_verification', 'cancelled', 'expired'] as const;
const PLATFORM_VALUES = ['ios', 'android', 'web'] as const;
/** The list filter's values, held to lib's types (importing lib's arrays would bundle lib's modules). */
export const SUBSCRIPTION_STATUSES: Complete<SubscriptionStatus, typeof STATUSES> = STATUSES;
export const PLATFORMS: Complete<Platform, typeof PLATFORM_VALUES> = PLATFORM_VALUES;

// --- The API's shapes: the zod schemas' types in lib/schemas (types only: nothing of lib/ is bundled) ---
export type { DeliveryView as Delivery } from '../../lib/domain/webhook-deliveries';
export type { AppOverview } from '../../lib/schemas/app';
export type { CustomerList } from '../../lib/schemas/customer-list';
export type { CustomerInfo } from '../../lib/schemas/entitlement';
export type { AppOfferings, Audience } from '../../lib/schemas/offering';
export type { Product } from '../../lib/schemas/product';
export type { RevenueStatistics, SubscriptionMetrics } from '../../lib/schemas/responses';
export type {
  Pagination,
  SubscriptionDetail,
  SubscriptionListItem as SubscriptionItem,
} from '../../lib/schemas/subscription';
export type { HistoryEntry, HistoryPagination } from '../../lib/schemas/subscription-history';
export type { DeliveryPagination } from '../../lib/schemas/webhook';
