/** lib/ is what the Lambda bundles carry: it never reaches into the local runtime, the CLI or the handlers. */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourcesUnder(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('layout', () => {
  it('nothing under lib/ imports from functions/, local/ or cli/', () => {
    const offending: string[] = [];
    for (const file of sourcesUnder(join(ROOT, 'lib'))) {
      for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*['"](\.[^'"]+)['"]/g)) {
        const target = relative(ROOT, resolve(file, '..', specifier!));
        if (/^(functions|local|cli)\//.test(target)) offending.push(`${relative(ROOT, file)} -> ${target}`);
      }
    }
    expect(offending).toEqual([]);
  });
});
