import { afterEach, describe, expect, it, vi } from 'vitest';
import { runSoak, soakChecks } from '../../bench/support/soak-run.js';

// `npm run soak` in miniature, so that the script cannot rot: its own DynamoDB Local on disk
// (killed and restarted once), the local runtime, a few clients for a few seconds, the drain and
// every reconciliation check. runSoak imports lib/ only after pointing it at that DynamoDB Local.
describe('soak (short): mixed traffic with DynamoDB Local killed and restarted', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('answers only 2xx or retryable 503s, and the table and the webhooks reconcile with what was acknowledged', async () => {
    // The outage makes a webhook delivery that is under way fail (its function cannot record the
    // attempt): the local bus logs that and the stream poller hands the event over again. Those
    // lines are the test's to check, not the run's output.
    const logged: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: unknown) => {
      logged.push(String(line));
    });
    const outcome = await runSoak({
      durationMs: 8000,
      clients: 3,
      outage: { atMs: 2500, downMs: 500 },
      sweepIntervalSeconds: 1,
      drainTimeoutMs: 30_000,
    });
    const failed = soakChecks(outcome).filter((check) => !check.pass);
    expect(
      failed,
      JSON.stringify({ failed, reconciliation: outcome.reconciliation, unexpected: outcome.unexpected }, null, 2),
    ).toEqual([]);
    expect(outcome.outage?.retryableDuring).toBeGreaterThan(0);
    for (const line of logged) {
      expect(JSON.parse(line), line).toMatchObject({
        level: 'ERROR',
        message: 'local bus: webhook deliverer failed',
        event_id: expect.stringMatching(/^evt_/),
        // DynamoDB Local down or going away (lib/data/unavailable.ts's errors, as String(error) gives them).
        error: expect.stringMatching(
          /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|socket hang up|TimeoutError|ServiceUnavailable|InternalServerError/,
        ),
      });
    }
  }, 180_000);
});
