import { readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Bundle,
  buildBundle,
  deployedFunctions,
  FLOOR_HANDLER,
  SIZE_MARGIN_BYTES,
} from '../../bench/support/bundles.js';
import { REPO_ROOT } from '../../cdk/constructs/service-function.js';

/**
 * Issue #8's size budget on every deployed bundle, built as the stack builds it (a few seconds
 * for all of them): a new import that drags a library or an SDK client into a function shows
 * here, not at the next cold-start benchmark. Cold-start time is bench/cold-start.ts's.
 */
describe('function bundle sizes', () => {
  const functions = deployedFunctions();
  let dir: string;
  let floor: Bundle;
  const bundles = new Map<string, Bundle>();
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bundle-sizes-'));
    floor = await buildBundle(FLOOR_HANDLER, dir, 'Floor');
    for (const fn of functions) bundles.set(fn.handler, await buildBundle(fn.handler, dir, fn.names[0]!));
  }, 300_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('covers every handler module under functions/', () => {
    const files = readdirSync(join(REPO_ROOT, 'functions'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .map((file) => relative(REPO_ROOT, join(REPO_ROOT, 'functions', file)));
    expect(functions.map((fn) => fn.handler).sort()).toEqual(files.sort());
  });

  it(`keeps every bundle within the floor + ${SIZE_MARGIN_BYTES / 1024} KB`, () => {
    const over = functions
      .map((fn) => ({ handler: fn.handler, bytes: bundles.get(fn.handler)!.bytes }))
      .filter(({ bytes }) => bytes > floor.bytes + SIZE_MARGIN_BYTES)
      .map(({ handler, bytes }) => `${handler}: ${(bytes / 1024).toFixed(1)} KB`);
    expect(over, `floor ${(floor.bytes / 1024).toFixed(1)} KB`).toEqual([]);
  });
});
