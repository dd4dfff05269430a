/** The AppError a promise rejects with (fails the test when it resolves or rejects otherwise). */
import { AppError } from '../../lib/core/errors.js';

export async function appErrorOf(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a rejection with an AppError');
}

/** The AppError a synchronous call throws. */
export function appErrorThrownBy(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an AppError to be thrown');
}
