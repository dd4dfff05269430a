import { vi } from 'vitest';

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
