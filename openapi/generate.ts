/** `npm run openapi [-- --out FILE]`: writes the OpenAPI document of both APIs to docs/openapi.json (or FILE). */
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { parseArgs } from 'node:util';
import { buildDocument, DOCUMENT_PATH, serializeDocument } from './document.js';

const { values } = parseArgs({ options: { out: { type: 'string' } } });
const out = values.out ?? DOCUMENT_PATH;
writeFileSync(out, serializeDocument(await buildDocument()));
console.log(`wrote ${relative(process.cwd(), out)}`);
