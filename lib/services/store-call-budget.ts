/**
 * What a verification may make us spend at a store (docs/security.md#outbound-store-calls):
 * - a purchase token or receipt the store said it does not know is refused without asking again
 *   for STORE_UNKNOWN_TTL_SECONDS (in the table, so every instance knows; this instance's copy first);
 * - a verification of a purchase the table does not know yet (a Google token no one verified and
 *   no notification named, any legacy App Store receipt) takes one call from the app's bucket
 *   (STORE_CALL_BURST, refilled at STORE_CALLS_PER_MINUTE), and none while a store's 429 holds;
 *   spent, it is VERIFICATION_FAILED, retryable, with Retry-After;
 * - a purchase the table knows (a renewal, a restore), store notifications and the sweeper are not
 *   budgeted: the spam a public key can send cannot starve them. Their 429s open the back-off too.
 * The bucket and the remembered answers are read with the app (storeCallKeys), no request of their own.
 */
import { config } from '../core/config.js';
import { AppError } from '../core/errors.js';
import { sha256Hex } from '../core/ids.js';
import type { TableKey } from '../data/keys.js';
import { keys } from '../data/keys.js';
import {
  readBudget,
  storedBudgetOf,
  unknownUntilOf,
  writeBackOff,
  writeTake,
  writeUnknownToStore,
} from '../data/store-call-budget.js';
import { backedOff, decideStoreCall } from '../domain/store-call-budget.js';
import { StoreThrottledError, UnknownToStoreError } from '../stores/store-answers.js';

export type BudgetedStore = 'app_store' | 'google_play';

/** Remembered per instance; a full map starts over (memory stays bounded under made-up tokens). */
const MAX_REMEMBERED = 1000;
const unknownHere = new Map<string, number>();
const hereKey = (appId: string, store: string, hash: string) => `${appId}#${store}#${hash}`;

/** The items a guard decides on, to be read with the app: the bucket, and the store's remembered answer. */
export const storeCallKeys = (appId: string, store: BudgetedStore, subject: string): TableKey[] => [
  keys.storeCallBudget(appId, store),
  keys.unknownToStore(appId, store, sha256Hex(subject)),
];

export interface StoreCallGuard {
  /** Runs `call` (one verification at the store) if the budget allows it; see the module comment. */
  run<T>(call: () => Promise<T>): Promise<T>;
}

const waitFor = (seconds: number, why: string) =>
  new AppError('VERIFICATION_FAILED', `${why}; retry after ${seconds} s`, {
    retryable: true,
    headers: { 'Retry-After': String(seconds) },
  });

/**
 * The guard of one verification's store call. `read`: the items of storeCallKeys, in their order;
 * `budgeted`: whether the purchase is one the table does not know (only those spend the budget).
 */
export function storeCallGuard(
  appId: string,
  store: BudgetedStore,
  subject: string,
  read: readonly (Record<string, unknown> | undefined)[],
  options: { budgeted: boolean },
  now: () => number = Date.now,
): StoreCallGuard {
  const hash = sha256Hex(subject);
  return {
    async run(call) {
      const at = now();
      const known = hereKey(appId, store, hash);
      if (Math.max(unknownHere.get(known) ?? 0, unknownUntilOf(read[1])) > at)
        throw new UnknownToStoreError(
          `the ${store === 'google_play' ? 'Google Play' : 'App Store'} did not know this purchase when last asked`,
        );
      if (options.budgeted) await take(appId, store, read[0], at);
      try {
        return await call();
      } catch (error) {
        if (error instanceof UnknownToStoreError && config.storeUnknownTtlSeconds > 0) {
          const until = now() + config.storeUnknownTtlSeconds * 1000;
          if (unknownHere.size >= MAX_REMEMBERED) unknownHere.clear();
          unknownHere.set(known, until);
          await writeUnknownToStore(appId, store, hash, until);
        }
        await noteStoreThrottle(appId, store, error, now());
        throw error;
      }
    },
  };
}

/** Takes one call from the app's bucket, or refuses (retryable, with Retry-After). */
async function take(
  appId: string,
  store: BudgetedStore,
  item: Record<string, unknown> | undefined,
  at: number,
): Promise<void> {
  const limits = config.storeCallBudget;
  let current = item;
  // Instances racing for the bucket each write on the version they read; the loser reads again.
  for (let attempt = 0; attempt < 4; attempt++) {
    const { state, version } = storedBudgetOf(current, limits);
    const decision = decideStoreCall(state, limits, at);
    if (decision.kind === 'wait') {
      throw waitFor(
        decision.retryAfterSeconds,
        decision.reason === 'store_throttled'
          ? 'the store asked us to slow down'
          : "this app's budget of calls to the store is spent for now",
      );
    }
    if (await writeTake(appId, store, version, decision.next, at)) return;
    current = await readBudget(appId, store);
  }
  throw waitFor(1, "this app's budget of calls to the store is contended");
}

/** A store's 429 (StoreThrottledError) opens the app's back-off window: budgeted calls wait it out. */
export async function noteStoreThrottle(appId: string, store: BudgetedStore, error: unknown, at = Date.now()) {
  if (!(error instanceof StoreThrottledError)) return;
  const { backOffUntil } = backedOff(undefined, config.storeCallBudget, at, error.retryAfterSeconds);
  await writeBackOff(appId, store, backOffUntil, at);
}
