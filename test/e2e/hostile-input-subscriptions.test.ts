/** Issue #7, "Hostile input", for the subscriptions API: see test/support/hostile-endpoints.ts. */
import { vi } from 'vitest';

vi.hoisted(() => {
  // Its own table, so a full scan before and after each request is small and sees only this file's writes.
  process.env.TABLE_NAME = `hostile-input-subscriptions-${process.pid}`;
  // Thousands of requests with the same few keys: each is looked up once a minute (revocation is not what is fuzzed here).
  process.env.KEY_CACHE_TTL_SECONDS = '60';
});

import { fuzzEveryRouteOf } from '../support/hostile-endpoints.js';

// 23 routes x 40 cases (each run draws a new seed, so the runs add up; FUZZ_RUNS=200 for a longer run):
// beside the rest of npm test on two cores, the file takes about two minutes.
fuzzEveryRouteOf('subscriptions', 40);
