import { describe, expect, it } from 'vitest';
import { runSoak, soakChecks } from '../../bench/support/soak-run.js';

// `npm run soak` in miniature, so that the script cannot rot: its own DynamoDB Local on disk
// (killed and restarted once), the local runtime, a few clients for a few seconds, the drain and
// every reconciliation check. runSoak imports lib/ only after pointing it at that DynamoDB Local.
describe('soak (short): mixed traffic with DynamoDB Local killed and restarted', () => {
  it('answers only 2xx or retryable 503s, and the table and the webhooks reconcile with what was acknowledged', async () => {
    const outcome = await runSoak({
      durationMs: 8000,
      clients: 3,
      outage: { atMs: 2500, downMs: 500 },
      sweepIntervalSeconds: 1,
      drainTimeoutMs: 30_000,
    });
    const failed = soakChecks(outcome).filter((check) => !check.pass);
    expect(failed, JSON.stringify({ failed, reconciliation: outcome.reconciliation, unexpected: outcome.unexpected }, null, 2)).toEqual([]);
    expect(outcome.outage?.retryableDuring).toBeGreaterThan(0);
  }, 180_000);
});
