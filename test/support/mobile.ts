/** The headers a mobile SDK sends (every common header of the spec), with any of them changed. */
import type { TestApp } from './fixtures.js';

export function mobileHeaders(
  app: TestApp,
  user: string,
  overrides: Record<string, string | undefined> = {},
): Record<string, string> {
  const headers: Record<string, string | undefined> = {
    'x-api-key': app.sdkKey,
    'x-user-id': user,
    'user-agent': 'TestSDK/1.0 (iPhone; iOS 18.1)',
    'x-app-id': app.appId,
    'x-platform': 'iOS',
    'x-version': '1.0.0',
    accept: 'application/json',
    ...overrides,
  };
  return Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined)) as Record<string, string>;
}
