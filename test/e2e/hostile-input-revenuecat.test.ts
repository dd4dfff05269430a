/** Issue #7, "Hostile input", for RevenueCat's SDK dialect: see test/support/hostile-endpoints.ts. */
import { vi } from 'vitest';

vi.hoisted(() => {
  // Its own table, so a full scan before and after each request is small and sees only this file's writes.
  process.env.TABLE_NAME = `hostile-input-revenuecat-${process.pid}`;
  // Thousands of requests with the same few keys: each is looked up once a minute (revocation is not what is fuzzed here).
  process.env.KEY_CACHE_TTL_SECONDS = '60';
});

import { fuzzEveryRouteOf } from '../support/hostile-endpoints.js';

// 2 routes x 80 cases (each run draws a new seed, so the runs add up; FUZZ_RUNS=300 for a longer run).
fuzzEveryRouteOf('revenuecat', 80);
