/**
 * lib/ validates with zod/mini, zod's tree-shakable build: classic zod attaches every method to
 * every schema, so each function bundle carried all of zod (about 90 KB minified, a tenth of the
 * cold-start CPU) whichever schemas it used; with zod/mini a bundle carries only the schema kinds
 * and checks its own endpoint uses (about 20 KB). Validation and messages are zod's own either way.
 *
 * zod/mini starts without messages ("Invalid input" for everything); this sets zod's English ones,
 * as classic zod does on import. Every module that defines schemas imports it. Import zod itself
 * as `import * as z from 'zod/mini'` in each module: esbuild tree-shakes a namespace import, but
 * a namespace re-exported from a module of ours would bring all of zod (and its 40 locales) back.
 */
import { config } from 'zod/mini';
import { en } from 'zod/locales';

config(en());
