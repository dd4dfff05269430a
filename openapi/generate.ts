/** `npm run openapi`: writes the OpenAPI document of both APIs to docs/openapi.json. */
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { buildDocument, DOCUMENT_PATH, serializeDocument } from './document.js';

writeFileSync(DOCUMENT_PATH, serializeDocument(await buildDocument()));
console.log(`wrote ${relative(process.cwd(), DOCUMENT_PATH)}`);
