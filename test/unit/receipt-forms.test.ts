import { describe, expect, it } from 'vitest';
import { isSignedTransaction, jwsHeaderOf, jwsOf, statedTransaction } from '../../lib/stores/signed-receipt.js';

const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const JWS = `${part({ alg: 'ES256', kid: 'k' })}.${part({ transactionId: '1', originalTransactionId: '0', productId: 'p' })}.c2ln`;
const base64 = (text: string) => Buffer.from(text).toString('base64');

describe('receipt_data that is a JWS, raw or base64', () => {
  it.each<[string, string, string | undefined]>([
    ['raw', JWS, JWS],
    ['raw among blanks', `\n ${JWS} \t`, JWS],
    ['base64', base64(JWS), JWS],
    ['base64 among blanks', `  ${base64(JWS)}\n`, JWS],
    ['base64 of the JWS among blanks', base64(` ${JWS}\n`), JWS],
    [
      'an unsigned JWS (empty signature)',
      `${JWS.slice(0, JWS.lastIndexOf('.'))}.`,
      `${JWS.slice(0, JWS.lastIndexOf('.'))}.`,
    ],
    ['two parts', JWS.slice(0, JWS.lastIndexOf('.')), undefined],
    ['four parts', `${JWS}.x`, undefined],
    ['a character outside base64url', JWS.replace('.', '+.'), undefined],
    ['text before it', `x ${JWS}`, undefined],
    ['nothing', '', undefined],
  ])('%s', (_, receiptData, jws) => {
    expect(jwsOf(receiptData)).toBe(jws);
  });
});

describe('the JOSE header of receipt_data, unverified', () => {
  it.each<[string, string, Record<string, unknown> | undefined, boolean]>([
    ['a JWS', JWS, { alg: 'ES256', kid: 'k' }, true],
    ['a base64 JWS', base64(JWS), { alg: 'ES256', kid: 'k' }, true],
    ['a header without alg', `${part({ kid: 'k' })}.e30.c2ln`, { kid: 'k' }, false],
    ['a header whose alg is no string', `${part({ alg: 7 })}.e30.c2ln`, { alg: 7 }, false],
    ['a header that is a list', `${part(['ES256'])}.e30.c2ln`, undefined, false],
    ['a header that is null', `${part(null)}.e30.c2ln`, undefined, false],
    ['a header that is a string', `${part('ES256')}.e30.c2ln`, undefined, false],
    ['a header that is not JSON', 'bm90.e30.c2ln', undefined, false],
    ['no JWS', 'MIIT', undefined, false],
  ])('%s', (_, receiptData, header, signed) => {
    expect(jwsHeaderOf(receiptData)).toEqual(header);
    expect(isSignedTransaction(receiptData)).toBe(signed);
  });
});

describe('the ids a JWS transaction states', () => {
  const stating = (payload: unknown) => `${part({ alg: 'ES256' })}.${part(payload)}.c2ln`;
  it.each<[string, string, ReturnType<typeof statedTransaction>]>([
    ['all three', JWS, { transaction_id: '1', original_transaction_id: '0', product_id: 'p' }],
    [
      'an id of 256 bytes',
      stating({ transactionId: 't'.repeat(256), originalTransactionId: '0', productId: 'p' }),
      { transaction_id: 't'.repeat(256), original_transaction_id: '0', product_id: 'p' },
    ],
    [
      'an id of 257 bytes',
      stating({ transactionId: 't'.repeat(257), originalTransactionId: '0', productId: 'p' }),
      undefined,
    ],
    ['a numeric id', stating({ transactionId: 1, originalTransactionId: '0', productId: 'p' }), undefined],
    ['no product', stating({ transactionId: '1', originalTransactionId: '0' }), undefined],
    ['a payload that is null', stating(null), undefined],
    ['a payload that is not JSON', `${part({ alg: 'ES256' })}.bm90.c2ln`, undefined],
    ['no JWS', 'MIIT', undefined],
  ])('%s', (_, receiptData, stated) => {
    expect(statedTransaction(receiptData)).toEqual(stated);
  });
});
