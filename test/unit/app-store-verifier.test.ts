import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { APPLE_ROOT_CA_G3, appStoreVerifier } from '../../lib/stores/app-store.js';
import { statedTransaction } from '../../lib/stores/signed-receipt.js';
import { appStoreTransaction, STAND_IN_ROOT, signedByStandIn } from '../support/app-store-standin.js';
import { appErrorOf } from '../support/assertions.js';

/** Real Apple-signed sandbox data (see test/fixtures/apple/README.md). */
const TRANSACTION = readFileSync(
  new URL('../fixtures/apple/sandbox-subscription-transaction.jws', import.meta.url),
  'utf8',
).trim();
const sandbox = appStoreVerifier({ bundleId: 'com.app.qysmat', environment: 'Sandbox' });

/** The same JWS with one character of its payload changed. */
function tampered(jws: string, at: number): string {
  const [header, payload, signature] = jws.split('.') as [string, string, string];
  const original = payload[at]!;
  const replacement = original === 'A' ? 'B' : 'A';
  return [header, payload.slice(0, at) + replacement + payload.slice(at + 1), signature].join('.');
}

describe('App Store verification against the real Apple root (offline)', () => {
  it('ships Apple Root CA G3 with the published fingerprint', () => {
    expect(createHash('sha256').update(APPLE_ROOT_CA_G3.raw).digest('hex').toUpperCase()).toMatch(/^63343ABF.*3E9179$/);
    expect(APPLE_ROOT_CA_G3.subject).toContain('Apple Root CA - G3');
  });

  it('verifies the real sandbox transaction for com.app.qysmat / Sandbox and normalises it', async () => {
    expect(await sandbox.verify(TRANSACTION)).toEqual({
      store: 'app_store',
      platform: 'ios',
      environment: 'Sandbox',
      transaction_id: '2000000302596403',
      original_transaction_id: '2000000302178785',
      product_id: 'com.app.qysmat.premium.child.individual.subscription',
      purchase_date: new Date(1679899642000).toISOString(),
      expires_at: new Date(1679899942000).toISOString(),
      trial: false,
      price: null,
      currency: null,
      revoked: false,
      app_account_token: null,
    });
  });

  it("reads a transaction's appAccountToken as its account token (signed by the stand-in chain, with its root trusted)", async () => {
    const verifier = appStoreVerifier({ bundleId: 'com.example.subs', environment: 'Sandbox' }, [STAND_IN_ROOT]);
    const token = 'B1011B47-A5C7-5DD0-A3EA-FDE09A0C181A';
    expect(
      (await verifier.verify(signedByStandIn(appStoreTransaction('com.example.subs', { appAccountToken: token }))))
        .app_account_token,
    ).toBe(token);
    expect(
      (await verifier.verify(signedByStandIn(appStoreTransaction('com.example.subs')))).app_account_token,
    ).toBeNull();
    // Apple types it as a string: another type makes the transaction invalid, as in Apple's library.
    const mistyped = signedByStandIn(appStoreTransaction('com.example.subs', { appAccountToken: 42 }));
    expect((await appErrorOf(verifier.verify(mistyped))).code).toBe('INVALID_RECEIPT');
  });

  it('accepts the JWS base64-encoded, as receipt_data usually arrives', async () => {
    const result = await sandbox.verify(Buffer.from(TRANSACTION).toString('base64'));
    expect(result.transaction_id).toBe('2000000302596403');
  });

  it('rejects the transaction when any one payload byte changes', async () => {
    const payloadLength = TRANSACTION.split('.')[1]!.length;
    for (const at of [10, Math.floor(payloadLength / 2), payloadLength - 10]) {
      const error = await appErrorOf(sandbox.verify(tampered(TRANSACTION, at)));
      expect(error.code).toBe('INVALID_RECEIPT');
    }
  });

  it('rejects it for an app with another bundle id', async () => {
    const error = await appErrorOf(
      appStoreVerifier({ bundleId: 'com.example.other', environment: 'Sandbox' }).verify(TRANSACTION),
    );
    expect(error.code).toBe('INVALID_RECEIPT');
    expect(error.message).toContain('another app');
  });

  it('accepts a sandbox transaction for an app configured for Production (App Review buys in the sandbox), marked Sandbox', async () => {
    const production = appStoreVerifier({
      bundleId: 'com.app.qysmat',
      environment: 'Production',
      appAppleId: 1234567890,
    });
    expect(await production.verify(TRANSACTION)).toEqual(await sandbox.verify(TRANSACTION));
    expect((await production.verify(TRANSACTION)).environment).toBe('Sandbox');
  });

  it('takes Production transactions in a Production app, and refuses them (and any other environment) in a Sandbox app', async () => {
    const app = (environment: 'Production' | 'Sandbox') =>
      appStoreVerifier({ bundleId: 'com.example.subs', environment, appAppleId: 1234567890 }, [STAND_IN_ROOT]);
    const signed = (environment: string) => signedByStandIn(appStoreTransaction('com.example.subs', { environment }));
    expect((await app('Production').verify(signed('Production'))).environment).toBe('Production');
    for (const [environment, configured] of [
      ['Production', 'Sandbox'],
      ['Xcode', 'Sandbox'],
      ['Xcode', 'Production'],
      ['LocalTesting', 'Production'],
    ] as const) {
      const error = await appErrorOf(app(configured).verify(signed(environment)));
      expect(error.code).toBe('INVALID_RECEIPT');
      expect(error.message).toContain('another environment');
    }
  });

  it('rejects garbage and a signature from another chain', async () => {
    for (const receipt of [
      'not a receipt',
      Buffer.from('{"a":1}').toString('base64'),
      'eyJhbGciOiJFUzI1NiJ9.eyJ0cmFuc2FjdGlvbklkIjoiMSJ9.c2ln',
    ]) {
      expect((await appErrorOf(sandbox.verify(receipt))).code).toBe('INVALID_RECEIPT');
    }
  });

  it('reads the ids a transaction states before verifying it (to choose what to read), raw or base64; nothing from anything else', () => {
    const stated = {
      transaction_id: '2000000302596403',
      original_transaction_id: '2000000302178785',
      product_id: 'com.app.qysmat.premium.child.individual.subscription',
    };
    expect(statedTransaction(TRANSACTION)).toEqual(stated);
    expect(statedTransaction(Buffer.from(TRANSACTION).toString('base64'))).toEqual(stated);
    for (const other of [
      'not a receipt',
      'eyJhbGciOiJFUzI1NiJ9.bnVsbA.c2ln',
      'eyJhbGciOiJFUzI1NiJ9.eyJ0cmFuc2FjdGlvbklkIjoxfQ.c2ln',
      'a.!!.b',
    ])
      expect(statedTransaction(other)).toBeUndefined();
    // Ids no store issues (empty, or longer than a table key may be) are not read by.
    const stating = (productId: string) =>
      `eyJhbGciOiJFUzI1NiJ9.${Buffer.from(JSON.stringify({ transactionId: '1', originalTransactionId: '1', productId })).toString('base64url')}.c2ln`;
    expect(statedTransaction(stating('premium'))).toEqual({
      transaction_id: '1',
      original_transaction_id: '1',
      product_id: 'premium',
    });
    expect(statedTransaction(stating(''))).toBeUndefined();
    expect(statedTransaction(stating('p'.repeat(3000)))).toBeUndefined();
    expect(statedTransaction(stating('🍎'.repeat(100)))).toBeUndefined(); // 400 bytes
  });
});
