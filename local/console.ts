/**
 * The operator console in `npm start`: built in memory at start (console/build.ts) and served at
 * /console with the same security headers CloudFront sends in AWS. The console and the API share
 * this origin here, so the console calls the API without CORS and its CSP allows only 'self'.
 */
import { buildConsole, CONSOLE_PATH, type ConsoleFile, consoleSecurityHeaders } from '../console/build.js';
import type { StaticAnswer } from './api-reference.js';

export function consoleSite(): (method: string, path: string) => StaticAnswer | undefined {
  const files: Map<string, ConsoleFile> = buildConsole({ apiUrl: '' });
  const security = consoleSecurityHeaders("'self'");
  return (method, path): StaticAnswer | undefined => {
    if (path !== CONSOLE_PATH && !path.startsWith(`${CONSOLE_PATH}/`)) return undefined;
    if (method !== 'GET' && method !== 'HEAD')
      return {
        status: 405,
        headers: { Allow: 'GET, HEAD', 'Content-Type': 'text/plain' },
        body: 'Method not allowed\n',
      };
    if (path === CONSOLE_PATH) return { status: 308, headers: { Location: `${CONSOLE_PATH}/` }, body: '' };
    const name = path.slice(CONSOLE_PATH.length + 1) || 'index.html';
    const file = files.get(name);
    if (!file) return { status: 404, headers: { ...security, 'Content-Type': 'text/plain' }, body: 'Not found\n' };
    return { status: 200, headers: { ...security, 'Content-Type': file.contentType }, body: file.body };
  };
}
