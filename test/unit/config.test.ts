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
});
