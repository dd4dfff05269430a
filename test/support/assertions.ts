/** The AppError a promise rejects with (fails the test when it resolves or rejects otherwise). */
import { AppError } from '../../lib/core/errors.js';

export async function appErrorOf(promise: Promise<unknown>, type: typeof AppError = AppError): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof type) return error;
    throw error;
  }
  throw new Error('expected a rejection with an AppError');
}

/** The error of class `type` a synchronous call throws (fails the test when it throws nothing or another error). */
export function errorThrownBy<E extends Error>(fn: () => unknown, type: new (...args: never[]) => E): E {
  try {
    fn();
  } catch (error) {
    if (error instanceof type) return error;
    throw error;
  }
  throw new Error(`expected ${type.name} to be thrown`);
}

/** The AppError a synchronous call throws. */
export const appErrorThrownBy = (fn: () => unknown): AppError => errorThrownBy(fn, AppError);
