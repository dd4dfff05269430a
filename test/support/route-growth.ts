/**
 * A larger route table for the quota test: `factor` copies of every route of ours, each copy a
 * function of its own at paths of its own inside the same API surface (a `copyN` segment after the
 * surface's prefix), so that every nested stack grows as it would if its surface had that many
 * routes. The DingYue SDK's routes are that SDK's fixed set of calls, served by our functions:
 * they are kept once, not grown.
 */
import { API_SURFACES } from '../../cdk/constructs/api-surfaces.js';
import { isDingYuePath } from '../../lib/http/dingyue.js';
import type { Route } from '../../lib/routes.js';

export function multiplyRoutes(routes: readonly Route[], factor: number): Route[] {
  const prefixOf = (path: string) => {
    const prefix = API_SURFACES.flatMap((surface) => surface.prefixes).find(
      (p) => path === p || path.startsWith(`${p}/`),
    );
    if (!prefix) throw new Error(`${path} is under no API surface`);
    return prefix;
  };
  const ours = routes.filter((route) => !isDingYuePath(route.path));
  const copies = Array.from({ length: factor - 1 }, (_, i) => i + 2).flatMap((copy) =>
    ours.map((route): Route => {
      const prefix = prefixOf(route.path);
      return {
        ...route,
        name: `${route.name}Copy${copy}`,
        path: `${prefix}/copy${copy}${route.path.slice(prefix.length)}`,
        // Another spelling of the same module: its own function (one per handler) with real code behind it.
        handler: `${'./'.repeat(copy - 1)}${route.handler}`,
      };
    }),
  );
  return [...routes, ...copies];
}
