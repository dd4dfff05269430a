/**
 * What the App Store readers trust when the caller names no root: the module's Apple root
 * (lib/stores/apple-root-ca-g3.ts), here replaced by the stand-in chain's root as the e2e suites
 * replace it, so that data the stand-in signed verifies by default and the default is seen to be
 * that module's root, not none. Each reader is given the same data with the roots named, and
 * refuses it under Apple's real root.
 */
import { X509Certificate } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';

vi.mock('../../lib/stores/apple-root-ca-g3.js', () => import('../support/stand-in-apple-root.js'));

import {
  decodeAppStoreNotification,
  decodeAppStorePurchaseState,
  verifyAppStoreNotification,
} from '../../lib/stores/app-store-notifications.js';
import { appStoreNotificationBody, appStoreRenewalInfo, NOTIFY_BUNDLE } from '../support/app-store-notifications.js';
import { appStoreTransaction, signedByStandIn } from '../support/app-store-standin.js';

const APPLE_ROOT = new X509Certificate(
  (await vi.importActual<typeof import('../../lib/stores/apple-root-ca-g3.js')>('../../lib/stores/apple-root-ca-g3.js'))
    .APPLE_ROOT_CA_G3_PEM,
);
const SANDBOX_APP = { bundleId: NOTIFY_BUNDLE, environment: 'Sandbox' } as const;
const UUID = '0c4bd4e2-5f0e-4d6a-9d3c-6f2b1a8e7c55';

describe("the App Store readers trust the module's Apple root by default", () => {
  it('a notification', () => {
    const body = appStoreNotificationBody({ type: 'TEST', notificationUUID: UUID, signedDate: Date.now() });
    expect(verifyAppStoreNotification(body).notification_id).toBe(UUID);
    expect(decodeAppStoreNotification(body, SANDBOX_APP).type).toBe('TEST');
    expect(() => decodeAppStoreNotification(body, SANDBOX_APP, [APPLE_ROOT])).toThrow(
      'the signature or certificate chain does not verify',
    );
  });

  it("a purchase's status, as the App Store Server API answers it", () => {
    const transaction = appStoreTransaction(NOTIFY_BUNDLE, {});
    const signed = {
      signedTransactionInfo: signedByStandIn(transaction),
      signedRenewalInfo: signedByStandIn(appStoreRenewalInfo(transaction)),
      status: 1,
    };
    const state = decodeAppStorePurchaseState(signed, SANDBOX_APP, Date.now());
    expect(state?.transaction_id).toBe(transaction.transactionId);
    expect(() => decodeAppStorePurchaseState(signed, SANDBOX_APP, Date.now(), [APPLE_ROOT])).toThrow(
      'the signature or certificate chain does not verify',
    );
  });
});
