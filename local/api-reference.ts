/**
 * The API reference `npm start` serves beside the APIs: the OpenAPI document (docs/openapi.json,
 * written by `npm run openapi`) at /openapi.json, and at /docs a page that renders it with Redoc's
 * standalone bundle, served from node_modules: the page loads nothing from other hosts. The bundle
 * draws Redocly's logo from their CDN in its side menu; it is served without that address (the
 * logo hides itself when it cannot load), and the page declares an inline icon, so the browser
 * asks for no /favicon.ico either.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DOCUMENT = resolve(REPO_ROOT, 'docs/openapi.json');
const REDOC_BUNDLE = createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js');
const REDOC_CDN_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';

let redocBundle: Promise<string> | undefined;
/** Redoc's bundle without its one address on another host. */
const localRedocBundle = (): Promise<string> =>
  (redocBundle ??= readFile(REDOC_BUNDLE, 'utf8').then((source) => source.replaceAll(REDOC_CDN_LOGO, '')));

export const API_REFERENCE_PATHS = {
  document: '/openapi.json',
  page: '/docs',
  script: '/docs/redoc.standalone.js',
} as const;

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Subscription backend API reference</title>
    <link rel="icon" href="data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Crect width='16' height='16' rx='3' fill='%231f5fbf'/%3E%3C/svg%3E">
    <style>body { margin: 0; }</style>
  </head>
  <body>
    <redoc spec-url="${API_REFERENCE_PATHS.document}"></redoc>
    <script src="${API_REFERENCE_PATHS.script}"></script>
  </body>
</html>
`;

/** A file `npm start` serves itself, beside the API (the reference, the console). */
export interface StaticAnswer {
  status: number;
  headers: Record<string, string>;
  body: string | Buffer;
}

const file = (contentType: string, body: string | Buffer): StaticAnswer => ({
  status: 200,
  headers: { 'Content-Type': contentType },
  body,
});

/** The reference's answer to GET `path`, or undefined when the path is not one of its own. */
export async function apiReference(method: string, path: string): Promise<StaticAnswer | undefined> {
  if (method !== 'GET') return undefined;
  switch (path) {
    case API_REFERENCE_PATHS.document:
      return file('application/json; charset=utf-8', await readFile(DOCUMENT));
    case API_REFERENCE_PATHS.page:
      return file('text/html; charset=utf-8', PAGE);
    case API_REFERENCE_PATHS.script:
      return file('text/javascript; charset=utf-8', await localRedocBundle());
    default:
      return undefined;
  }
}
