/**
 * The operator console (issue #17): a static single-page app, bundled by esbuild into three files
 * (index.html, app.js, app.css). `npm start` serves them from memory at /console; the CDK stack
 * writes them to a folder and deploys them to S3 behind CloudFront. The API's URL is written into
 * index.html at that moment (a <meta>), so the app never needs a runtime configuration request.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSync } from 'esbuild';

export const CONSOLE_DIR = import.meta.dirname;
/** Where `npm start` serves the console; CloudFront serves it at its root. */
export const CONSOLE_PATH = '/console';
/** The budget for the whole console, gzipped. */
export const CONSOLE_MAX_GZIP_BYTES = 200 * 1024;
const API_URL_PLACEHOLDER = '__API_URL__';

export interface ConsoleFile {
  contentType: string;
  body: Buffer;
}

/**
 * The console's Content-Security-Policy: nothing inline, nothing from elsewhere, and requests
 * only to the API (`apiOrigin`; "'self'" when the API is served from the console's origin, as by
 * `npm start`). The same policy is sent by the local gateway and by CloudFront.
 */
export function consoleContentSecurityPolicy(apiOrigin: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src ${apiOrigin}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The headers every console file is served with (besides its Content-Type). */
export function consoleSecurityHeaders(apiOrigin: string): Record<string, string> {
  return {
    'Content-Security-Policy': consoleContentSecurityPolicy(apiOrigin),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cache-Control': 'no-cache',
  };
}

/**
 * Builds the console. `apiUrl`: the API's base URL (the stage's URL in AWS, a CDK token at synth
 * time), or '' when the console and the API share an origin.
 */
export function buildConsole(options: { apiUrl: string }): Map<string, ConsoleFile> {
  const result = buildSync({
    entryPoints: { app: join(CONSOLE_DIR, 'src/main.tsx') },
    bundle: true,
    write: false,
    outdir: '/out',
    format: 'esm',
    target: 'es2022',
    platform: 'browser',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const files = new Map<string, ConsoleFile>();
  for (const output of result.outputFiles) {
    const name = output.path.replace(/^\/out\//, '');
    files.set(name, {
      contentType: name.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8',
      body: Buffer.from(output.contents),
    });
  }
  files.set('index.html', { contentType: 'text/html; charset=utf-8', body: Buffer.from(consoleHtml(options.apiUrl)) });
  return files;
}

/** index.html with the API's URL in its <meta name="api-url">. */
export function consoleHtml(apiUrl: string): string {
  return readFileSync(join(CONSOLE_DIR, 'index.html'), 'utf8').replace(API_URL_PLACEHOLDER, escapeAttribute(apiUrl));
}

const escapeAttribute = (value: string) =>
  value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
