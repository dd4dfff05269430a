/** Settings read from the environment (docs/operations.md, `npm start`). */
import { describe, expect, it } from 'vitest';
import { readConfig } from '../../lib/core/config.js';

describe('configuration', () => {
  it('EVENT_RETENTION_DAYS: 90 by default, a non-negative integer when set', () => {
    expect(readConfig({}).eventRetentionDays).toBe(90);
    expect(readConfig({ EVENT_RETENTION_DAYS: '' }).eventRetentionDays).toBe(90);
    expect(readConfig({ EVENT_RETENTION_DAYS: '7' }).eventRetentionDays).toBe(7);
    expect(() => readConfig({ EVENT_RETENTION_DAYS: '-1' })).toThrow(
      'EVENT_RETENTION_DAYS must be a non-negative integer',
    );
  });

  it('WEBHOOK_DELIVERY_RETENTION_DAYS: 30 by default, at least 1 day when set', () => {
    expect(readConfig({}).webhookDeliveryRetentionDays).toBe(30);
    expect(readConfig({ WEBHOOK_DELIVERY_RETENTION_DAYS: '7' }).webhookDeliveryRetentionDays).toBe(7);
    expect(() => readConfig({ WEBHOOK_DELIVERY_RETENTION_DAYS: '0' })).toThrow(
      'WEBHOOK_DELIVERY_RETENTION_DAYS must be at least 1',
    );
  });

  it('STORE_EXPIRY_MARGIN_SECONDS: an hour by default, a non-negative integer when set', () => {
    expect(readConfig({}).storeExpiryMarginSeconds).toBe(3600);
    expect(readConfig({ STORE_EXPIRY_MARGIN_SECONDS: '0' }).storeExpiryMarginSeconds).toBe(0);
    expect(() => readConfig({ STORE_EXPIRY_MARGIN_SECONDS: '1h' })).toThrow(
      'STORE_EXPIRY_MARGIN_SECONDS must be a non-negative integer',
    );
  });

  it("GOOGLE_OIDC_JWKS_URL: Google's published OIDC keys by default (tests: the stand-in's)", () => {
    expect(readConfig({}).googleOidcJwksUrl).toBe('https://www.googleapis.com/oauth2/v3/certs');
    expect(readConfig({ GOOGLE_OIDC_JWKS_URL: 'http://127.0.0.1:9/oauth2/v3/certs' }).googleOidcJwksUrl).toBe(
      'http://127.0.0.1:9/oauth2/v3/certs',
    );
  });

  it('REPORT_EVENTS_PER_APP_PER_MINUTE, REPORT_STORED_BYTES_PER_APP, REPORT_TYPES_PER_USER: the report quotas', () => {
    expect(readConfig({}).reportQuotas).toEqual({
      eventsPerMinute: 10_000,
      storedBytes: 107_374_182_400,
      typesPerUser: 32,
    });
    expect(
      readConfig({
        REPORT_EVENTS_PER_APP_PER_MINUTE: '50',
        REPORT_STORED_BYTES_PER_APP: '9000',
        REPORT_TYPES_PER_USER: '3',
      }).reportQuotas,
    ).toEqual({ eventsPerMinute: 50, storedBytes: 9000, typesPerUser: 3 });
    expect(() => readConfig({ REPORT_TYPES_PER_USER: 'many' })).toThrow(
      'REPORT_TYPES_PER_USER must be a non-negative integer',
    );
  });
});
