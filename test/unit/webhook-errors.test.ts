/** A failed webhook attempt is recorded as a category, never as the error's text (lib/domain/webhook-errors.ts). */
import { describe, expect, it } from 'vitest';
import { type DeliveryError, deliveryErrorOf } from '../../lib/domain/webhook-errors.js';

const coded = (code: string) => Object.assign(new Error(`${code} 10.0.0.7:6379`), { code });

const CASES: [string, unknown, DeliveryError][] = [
  ['the abort signal of the timeout', Object.assign(new Error('aborted'), { name: 'TimeoutError' }), 'timeout'],
  [
    'an abort caused by the timeout',
    Object.assign(new Error('aborted'), { cause: { name: 'TimeoutError' } }),
    'timeout',
  ],
  ['a closed port', coded('ECONNREFUSED'), 'connection_refused'],
  ['a reset', coded('ECONNRESET'), 'connection_reset'],
  ['a broken pipe', coded('EPIPE'), 'connection_reset'],
  ['an unknown name', coded('ENOTFOUND'), 'dns'],
  ['a resolver that did not answer', coded('EAI_AGAIN'), 'dns'],
  ['no route to the host', coded('EHOSTUNREACH'), 'unreachable'],
  ['no route to the network', coded('ENETUNREACH'), 'unreachable'],
  ["the system's connect timeout", coded('ETIMEDOUT'), 'unreachable'],
  ['a self-signed certificate', coded('DEPTH_ZERO_SELF_SIGNED_CERT'), 'tls'],
  ['an expired certificate', coded('CERT_HAS_EXPIRED'), 'tls'],
  ['a certificate for another name', coded('ERR_TLS_CERT_ALTNAME_INVALID'), 'tls'],
  ['an unknown issuer', coded('UNABLE_TO_VERIFY_LEAF_SIGNATURE'), 'tls'],
  ['a handshake failure', coded('ERR_SSL_WRONG_VERSION_NUMBER'), 'tls'],
  ['a private target refused', coded('ERR_REFUSED_TARGET'), 'refused_target'],
  [
    'a refusal wrapped as a cause',
    Object.assign(new Error('x'), { cause: coded('ERR_REFUSED_TARGET') }),
    'refused_target',
  ],
  ['a URL that does not parse', coded('ERR_INVALID_URL'), 'invalid_url'],
  ['another protocol', coded('ERR_UNSUPPORTED_PROTOCOL'), 'invalid_url'],
  ['a TLS-like code that is not one', coded('XERR_TLS_NOT_REALLY'), 'network'],
  ['anything else', new Error('socket hang up'), 'network'],
  ['not an Error at all', 'boom', 'network'],
  ['nothing', undefined, 'network'],
];

describe('deliveryErrorOf', () => {
  it.each(CASES)('%s', (_what, error, category) => {
    expect(deliveryErrorOf(error)).toBe(category);
  });
});
