/**
 * What a verification may make us spend at a store (docs/security.md#outbound-store-calls):
 * - a purchase token or receipt the store said it does not know is refused without asking again
 *   for STORE_UNKNOWN_TTL_SECONDS (in the table, so every instance knows; read with the app, it
 *   costs no request, so no copy is kept in the instance);
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
import * as keys from '../data/entity-keys.js';
import {
  readBudget,
  storedBudgetOf,
  unknownUntilOf,
  writeBackOff,
  writeTake,
  writeUnknownToStore,
} from '../data/store-call-budget.js';
import type { TableKey } from '../data/table-keys.js';
import { backOffSeconds, decideStoreCall } from '../domain/store-call-budget.js';
import { StoreThrottledError, UnknownToStoreError } from '../stores/store-answers.js';

export type BudgetedStore = 'app_store' | 'google_play';

/**
 * The items a guard decides on, to be read with the app: the bucket, the store's remembered answer
 * and, for a Google token, its purchase's item (a purchase the table knows spends no budget).
 */
export const storeCallKeys = (appId: string, store: BudgetedStore, subject: string): TableKey[] => [
  keys.storeCallBudget(appId, store),
  keys.unknownToStore(appId, store, sha256Hex(subject)),
  ...(store === 'google_play' ? [keys.purchase(appId, subject)] : []),
];

const BUDGET_SPENT = "this app's store call budget is spent";

const waitFor = (seconds: number, why: string) =>
  new AppError('VERIFICATION_FAILED', `${why}; retry after ${seconds} s`, {
    retryable: true,
    headers: { 'Retry-After': String(seconds) },
  });

/**
 * Runs `call` (one verification at the store) if the budget allows it; see the module comment.
 * `read`: the items of storeCallKeys, in their order. A legacy receipt is judged only once Apple's
 * signature is checked, after the budget is taken: always budgeted.
 */
export async function guardedStoreCall<T>(
  appId: string,
  store: BudgetedStore,
  subject: string,
  read: readonly (Record<string, unknown> | undefined)[],
  call: () => Promise<T>,
): Promise<T> {
  const at = Date.now();
  if (unknownUntilOf(read[1]) > at) throw new UnknownToStoreError('the store does not know this purchase');
  if (!read[2]) await take(appId, store, read[0], at);
  try {
    return await call();
  } catch (error) {
    if (error instanceof UnknownToStoreError && config.storeUnknownTtlSeconds > 0)
      await writeUnknownToStore(appId, store, sha256Hex(subject), Date.now() + config.storeUnknownTtlSeconds * 1000);
    await noteStoreThrottle(appId, store, error);
    throw error;
  }
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
  for (let attempt = 0; ; attempt++) {
    const { state, version } = storedBudgetOf(current, limits);
    const decision = decideStoreCall(state, limits, at);
    if (decision.kind === 'wait')
      throw waitFor(decision.retryAfterSeconds, decision.throttled ? 'the store asked us to slow down' : BUDGET_SPENT);
    if (attempt === 3) throw waitFor(1, BUDGET_SPENT);
    if (await writeTake(appId, store, version, decision.next, at)) return;
    current = await readBudget(appId, store);
  }
}

/** A store's 429 (StoreThrottledError) opens the app's back-off window: budgeted calls wait it out. */
export async function noteStoreThrottle(appId: string, store: BudgetedStore, error: unknown, at = Date.now()) {
  if (!(error instanceof StoreThrottledError)) return;
  // A longer window already stored stays (writeBackOff's condition).
  await writeBackOff(appId, store, at + backOffSeconds(error.retryAfterSeconds) * 1000, at);
}
