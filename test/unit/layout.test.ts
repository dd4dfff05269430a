/**
 * Which folder may import which. lib/ is what the Lambda bundles carry: it never reaches into the
 * local runtime, the CLI or the handlers; inside lib/, decisions (domain) rest on nothing that does
 * I/O, and repositories (data) know nothing of HTTP.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/** The event contract: schemas every layer may read, though the folder holding it does I/O. */
const EVENT_CONTRACT = 'lib/events/schemas.ts';

/** Layer of a source file: its folder under lib/ (lib/domain, ...), else its top folder. */
function layerOf(path: string): string {
  const [top, second] = path.split('/');
  if (path === EVENT_CONTRACT) return 'lib/schemas';
  return top === 'lib' && second?.endsWith('.ts') === false ? `lib/${second}` : top!;
}

/** Each layer and the layers it may import (its own is always allowed). */
const MAY_IMPORT: Record<string, readonly string[]> = {
  // The configuration's defaults are the decisions' own constants.
  'lib/core': ['lib/domain'],
  'lib/domain': ['lib/core', 'lib/schemas'],
  'lib/schemas': ['lib/core', 'lib/domain'],
  // Repositories write a change's outbox item in its own transaction, and find store credentials
  // where the store settings say they are kept.
  'lib/data': ['lib/core', 'lib/domain', 'lib/schemas', 'lib/events', 'lib/stores'],
  // The verifiers cache what the stores publish (Google's signing keys) in the table.
  'lib/stores': ['lib/core', 'lib/domain', 'lib/schemas', 'lib/data'],
  'lib/events': ['lib/core', 'lib/domain', 'lib/schemas', 'lib/data'],
  'lib/services': ['lib/core', 'lib/domain', 'lib/schemas', 'lib/data', 'lib/stores', 'lib/events'],
  'lib/http': ['lib/core', 'lib/domain', 'lib/schemas', 'lib/data'],
  // lib/routes.ts: the map of paths, functions and permissions.
  lib: ['lib/http'],
  functions: ['lib', 'lib/core', 'lib/domain', 'lib/schemas', 'lib/http', 'lib/services', 'lib/events'],
  // The CLI finds the server npm start runs from the file it writes (local/server-file.ts).
  cli: [
    'local',
    'lib',
    'lib/core',
    'lib/domain',
    'lib/schemas',
    'lib/data',
    'lib/http',
    'lib/services',
    'lib/stores',
    'lib/events',
  ],
  // The generator checks the document it wrote last.
  openapi: ['lib', 'lib/core', 'lib/domain', 'lib/schemas', 'lib/http', 'lib/stores', 'functions', 'docs'],
  cdk: ['lib', 'lib/core', 'lib/domain', 'lib/schemas', 'lib/data', 'lib/http', 'lib/stores', 'lib/events', 'console'],
  local: [
    'lib',
    'lib/core',
    'lib/domain',
    'lib/schemas',
    'lib/data',
    'lib/http',
    'lib/events',
    'lib/services',
    'lib/stores',
    'functions',
    'console',
  ],
  console: ['lib/domain', 'lib/schemas'],
};

/** Type-only imports against the table, each with why it stays. */
const TYPE_ONLY_EXCEPTIONS: Record<string, string> = {};

/** Packages that do I/O: a decision never imports them. */
const IO_PACKAGES = /^(@aws-sdk\/|node:(fs|http|https|net|dns|child_process))/;

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourcesUnder(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

interface Import {
  from: string;
  specifier: string;
  typeOnly: boolean;
}

function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  const from = relative(ROOT, file);
  return [...text.matchAll(/(import|export)(\s+type)?[^'";]*?(?:from\s*)?\(?\s*['"]([^'"]+)['"]/g)].map((match) => ({
    from,
    specifier: match[3]!,
    typeOnly: match[2] !== undefined,
  }));
}

const target = (source: Import) =>
  relative(ROOT, resolve(ROOT, source.from, '..', source.specifier)).replace(/\.js$/, '.ts');

const ALL = Object.keys(MAY_IMPORT).flatMap((layer) =>
  layer.startsWith('lib/') ? [] : sourcesUnder(join(ROOT, layer === 'lib' ? 'lib' : layer)),
);

describe('layout', () => {
  it('every import between folders is one the table allows', () => {
    const offending: string[] = [];
    for (const source of ALL.flatMap(importsOf)) {
      if (!/^\.\.?\/.*\.(js|ts|tsx|json)$/.test(source.specifier)) continue;
      const to = target(source);
      const [fromLayer, toLayer] = [layerOf(source.from), layerOf(to)];
      if (fromLayer === toLayer || MAY_IMPORT[fromLayer]?.includes(toLayer)) continue;
      const edge = `${source.from} -> ${to}`;
      if (source.typeOnly && TYPE_ONLY_EXCEPTIONS[edge]) continue;
      offending.push(edge);
    }
    expect(offending).toEqual([]);
  });

  it('every folder with sources has a row in the table', () => {
    const layers = new Set(ALL.map((file) => layerOf(relative(ROOT, file))));
    expect([...layers].filter((layer) => !MAY_IMPORT[layer])).toEqual([]);
  });

  it('decisions import no package that does I/O', () => {
    const offending = sourcesUnder(join(ROOT, 'lib/domain'))
      .flatMap(importsOf)
      .filter((source) => IO_PACKAGES.test(source.specifier))
      .map((source) => `${source.from} -> ${source.specifier}`);
    expect(offending).toEqual([]);
  });

  it('nothing under lib/ imports from functions/, local/ or cli/', () => {
    const offending = sourcesUnder(join(ROOT, 'lib'))
      .flatMap(importsOf)
      .filter((source) => source.specifier.startsWith('.') && /^(functions|local|cli)\//.test(target(source)))
      .map((source) => `${source.from} -> ${target(source)}`);
    expect(offending).toEqual([]);
  });

  it('the table itself is read: an import it does not allow is found', () => {
    const probe: Import = { from: 'lib/domain/billing.ts', specifier: '../data/client.js', typeOnly: false };
    const to = target(probe);
    expect([layerOf(probe.from), layerOf(to)]).toEqual(['lib/domain', 'lib/data']);
    expect(MAY_IMPORT['lib/domain']).not.toContain('lib/data');
  });
});
