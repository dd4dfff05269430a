import { beforeEach, vi } from 'vitest';
import type { AppError } from '../../lib/core/errors.js';

/**
 * A module evaluated anew, from inside the running test. Tables a module builds when it is loaded
 * (type names, rejection messages, patterns) are then this test's to hold: a mutation tool that
 * maps code to the tests that ran it (Stryker's per-test coverage) counts a table evaluated while
 * the test file was collected as covered by no test (docs/mutation.md, "Import-time tables").
 */
export async function freshModule<T>(load: () => Promise<T>): Promise<T> {
  vi.resetModules();
  return load();
}

/**
 * The module loaded afresh with the AppError class of the same load: errors it throws are instances
 * of that class, not of the one this test file imported.
 */
export const freshModuleWithAppError = <T extends object>(load: () => Promise<T>) =>
  freshModule(async () => ({ ...(await load()), AppError: (await import('../../lib/core/errors.js')).AppError }));

/**
 * The module's exports as loaded afresh before each test of the calling file, with the AppError
 * class of the same load: for a file whose subject builds its tables while it loads, so that every
 * test of the file holds them (a mutant in a table is then run against the tests that read it).
 * Read the exports inside tests only.
 */
export function freshBeforeEach<T extends object>(load: () => Promise<T>) {
  type Loaded = T & { AppError: typeof AppError };
  let current: Loaded | undefined;
  beforeEach(async () => {
    current = await freshModuleWithAppError(load);
  });
  return new Proxy({} as Loaded, {
    get(_target, name) {
      if (!current) throw new Error(`${String(name)} was read outside a test: the module is loaded before each test`);
      return current[name as keyof Loaded];
    },
  });
}
