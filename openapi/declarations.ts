/**
 * Each route's endpoint declaration, read from the handler module lib/routes.ts names for it
 * (its `endpoint` export, beside `handler`), loaded as the local gateway loads handlers.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { EndpointDeclaration } from '../lib/http/declaration.js';
import { ROUTES, type Route } from '../lib/routes.js';

const REPO_ROOT = resolve(import.meta.dirname, '..');

/** The declarations of these routes, by route name. */
export async function declarationsOf(routes: readonly Route[] = ROUTES): Promise<Map<string, EndpointDeclaration>> {
  const declarations = new Map<string, EndpointDeclaration>();
  for (const route of routes) {
    const module = (await import(pathToFileURL(resolve(REPO_ROOT, route.handler)).href)) as {
      endpoint?: EndpointDeclaration;
    };
    if (!module.endpoint) throw new Error(`${route.handler} exports no endpoint declaration`);
    declarations.set(route.name, module.endpoint);
  }
  return declarations;
}
