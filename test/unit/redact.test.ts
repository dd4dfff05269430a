import { describe, expect, it } from 'vitest';
import { newApiKey } from '../../lib/core/ids.js';
import { redactLogValue, redactText } from '../../lib/core/redact.js';

describe('log redaction', () => {
  it('removes both kinds of API key, bearer tokens and webhook secrets from text', () => {
    const secret = newApiKey('secret');
    const sdk = newApiKey('sdk');
    const text = redactText(
      `key ${secret}, sdk ${sdk}, header "Bearer abc.def", whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw`,
    );
    expect(text).toBe('key sk_[REDACTED], sdk pk_[REDACTED], header "Bearer [REDACTED]", whsec_[REDACTED]');
  });

  it('removes receipts: JWS, long base64 and PEM private keys', () => {
    const receipt = 'MIIT'.padEnd(120, 'QUJDRA');
    expect(redactText(`receipt ${receipt}=`)).toBe('receipt [REDACTED BASE64]');
    expect(redactText('jws eyJhbGciOiJFUzI1NiJ9.eyJ0IjoxfQ.sig-nature_')).toBe('jws [REDACTED JWS]');
    expect(redactText('-----BEGIN PRIVATE KEY-----\nMIGHAgEA\n-----END PRIVATE KEY-----')).toBe(
      '[REDACTED PRIVATE KEY]',
    );
  });

  it('removes user-token secrets and signed user tokens', () => {
    const text = redactText(
      'secret ust_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8, token v1.1893456000.CIAJ6OytigFZoYYL6r5vWUGlTxcgkms95QtTv6HDK9g.',
    );
    expect(text).toBe('secret ust_[REDACTED], token v1.[REDACTED USER TOKEN].');
    expect(
      JSON.parse(JSON.stringify({ 'X-USER-TOKEN': 'v1.1.x', user_token_secret: 'ust_x' }, redactLogValue)),
    ).toEqual({ 'X-USER-TOKEN': '[REDACTED]', user_token_secret: '[REDACTED]' });
  });

  it('removes email addresses', () => {
    expect(redactText('user jane.o+test@mail.example.co.uk signed up')).toBe('user [REDACTED EMAIL] signed up');
  });

  it('leaves ordinary log text alone', () => {
    const text =
      'webhook delivery dead-lettered: app_0123456789abcdef sub_0123456789abcdef01234567 after 7 attempts (HTTP 503)';
    expect(redactText(text)).toBe(text);
  });

  it('blanks whole fields that are sensitive by name, whatever their value, and scrubs every other string', () => {
    const line = JSON.parse(
      JSON.stringify(
        {
          headers: { Authorization: 'x', 'X-API-KEY': 'y' },
          receipt_data: 'short',
          email: 'a@b.co',
          note: 'from a@b.co',
          count: 3,
        },
        redactLogValue,
      ),
    );
    expect(line).toEqual({
      headers: { Authorization: '[REDACTED]', 'X-API-KEY': '[REDACTED]' },
      receipt_data: '[REDACTED]',
      email: '[REDACTED]',
      note: 'from [REDACTED EMAIL]',
      count: 3,
    });
  });
});
