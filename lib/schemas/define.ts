/**
 * How lib/ builds its zod schemas, so that a function bundle carries, and builds at cold start,
 * only the validation its own endpoint needs:
 *
 * - zod/mini, zod's tree-shakable build. Classic zod attaches every method to every schema, so
 *   each bundle would carry all of zod whichever schemas it used; with zod/mini it carries the
 *   schema kinds and checks it uses (docs/decisions/zod-mini-define.md). Validation and
 *   messages are zod's own either way. Import it as `import * as z from 'zod/mini'` in each
 *   module: esbuild tree-shakes a namespace import, but a namespace re-exported from a module
 *   of ours would bring all of zod (and its 40 locales) back.
 * - zod's English messages: zod/mini starts without any ("Invalid input" for everything); this
 *   module sets them, as classic zod does on import, from lib/schemas/zod-messages.ts (zod's
 *   locale for the formats we use: docs/decisions/zod-messages.md), and every schema module imports it.
 * - `export const x = /* @__PURE__ *\/ define(() => z.string().check(...))`: to esbuild a chained
 *   call such as `.check()` may have side effects, so every schema of a module would be built
 *   when a bundle imports the module, used or not. Built inside a call marked pure, a schema
 *   nobody imports is dropped from the bundle. (esbuild honours a pure mark at the call site, not zod's
 *   `@__NO_SIDE_EFFECTS__` on functions in another module.)
 */

import { config } from 'zod/mini';
import { englishMessage } from './zod-messages.js';

config({ localeError: englishMessage });

/** Returns what `build` builds; see above for why schemas are built through it. */
export function define<T>(build: () => T): T {
  return build();
}
