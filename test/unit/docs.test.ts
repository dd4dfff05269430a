/**
 * The documentation stays true to the tree: its links and anchors resolve, every package is
 * justified, every operator command it names exists, and every environment variable it names is
 * exercised by a test or benchmark; the decision records are all indexed.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERRORS } from '../../lib/core/errors.js';
import { admin, REPO_ROOT } from '../support/processes.js';

const markdownUnder = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownUnder(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
const PAGES = [join(REPO_ROOT, 'README.md'), ...markdownUnder(join(REPO_ROOT, 'docs'))];
const text = (path: string) => readFileSync(path, 'utf8');
/** Prose only: fenced blocks removed (a shell comment is not a heading). */
const withoutCode = (markdown: string) => markdown.replace(/```[\s\S]*?```/g, '');
/** No code at all: inline spans removed too (`[a](b)` in backticks is text, not a link). */
const withoutAnyCode = (markdown: string) => withoutCode(markdown).replace(/`[^`\n]*`/g, '');

/** GitHub's anchors of a page's headings. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading] of withoutCode(markdown).matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = heading!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return result;
}

/** Files under test/ and bench/ that could exercise a name (the docs generator and this test excluded). */
function exercisingSources(): string {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'results' && entry.name !== 'fixtures') walk(path);
      } else if (/\.(ts|mjs)$/.test(entry.name)) files.push(path);
    }
  };
  walk(join(REPO_ROOT, 'test'));
  walk(join(REPO_ROOT, 'bench'));
  const excluded = new Set([
    join(REPO_ROOT, 'test/unit/docs.test.ts'),
    join(REPO_ROOT, 'bench/support/report-markdown.ts'),
  ]);
  return files
    .filter((file) => !excluded.has(file))
    .map(text)
    .join('\n');
}

describe('documentation', () => {
  it('every relative link resolves, anchors included', () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      for (const [, target] of withoutAnyCode(text(page)).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const [path, anchor] = target!.split('#');
        const file = path ? resolve(dirname(page), path) : page;
        const where = `${relative(REPO_ROOT, page)}: ${target}`;
        if (!existsSync(file)) broken.push(`${where} (no such file)`);
        else if (anchor && (statSync(file).isDirectory() || !anchors(text(file)).has(anchor)))
          broken.push(`${where} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('every package of package.json has its line in the Dependencies section', () => {
    const manifest = JSON.parse(text(join(REPO_ROOT, 'package.json')));
    const architecture = text(join(REPO_ROOT, 'docs/architecture.md'));
    const section = architecture.slice(architecture.indexOf('## Dependencies'));
    const packages = [...Object.keys(manifest.dependencies), ...Object.keys(manifest.devDependencies)];
    expect(packages.filter((name) => !section.includes(`\`${name}\``))).toEqual([]);
  });

  it('the packages npm warns about on Node 20 are the ones operations.md names, from package-lock.json', () => {
    const lock = JSON.parse(text(join(REPO_ROOT, 'package-lock.json'))) as {
      packages: Record<string, { engines?: { node?: string } | string[] }>;
    };
    // The lowest major a range admits: `^22.18.0 || >=24.11.0` admits nothing below 22, `*` anything.
    const lowestMajor = (range: string) =>
      Math.min(...range.split('||').map((part) => Number(/\d+/.exec(part)?.[0] ?? 0)));
    const needing22 = new Set<string>();
    for (const [path, entry] of Object.entries(lock.packages)) {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      if (!path || !range || lowestMajor(range) < 22) continue;
      const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
      needing22.add(name.startsWith('@') ? `${name.split('/')[0]}/` : name);
    }
    const versions = withoutCode(text(join(REPO_ROOT, 'docs/operations.md'))).replace(/\s+/g, ' ');
    const sentence = /every installed package that needs Node 22 or later \(those of ([^)]*)\)/.exec(versions);
    expect(sentence, 'docs/operations.md, Node.js versions').not.toBeNull();
    const named = [...sentence![1]!.matchAll(/`([^`]+)`/g)].map(([, name]) => name!);
    expect(named.sort()).toEqual([...needing22].sort());
  });

  it('every operator command the docs name is one the CLI has', async () => {
    const help = await admin('help', '--json');
    const commands = (JSON.parse(help.stdout).commands as string[]).map((usage) => usage.split(/ \[?--/)[0]!.trim());
    const unknown = new Set<string>();
    let named = 0;
    for (const page of PAGES) {
      for (const [, found] of text(page).matchAll(/\badmin(?: --)? ([a-z][a-z-]*(?:\s[a-z][a-z-]*){0,2})/g)) {
        named += 1;
        const words = found!.replace(/\s/g, ' ');
        if (words !== 'help' && !commands.some((command) => `${words} `.startsWith(`${command} `)))
          unknown.add(`${relative(REPO_ROOT, page)}: admin ${words}`);
      }
    }
    expect(named).toBeGreaterThan(20);
    expect([...unknown]).toEqual([]);
  });

  it('every environment variable the docs name is exercised by a test or benchmark', () => {
    const sources = exercisingSources();
    const operations = text(join(REPO_ROOT, 'docs/operations.md'));
    const settingsTable = operations.slice(
      operations.indexOf('| setting |'),
      operations.indexOf('\n\n', operations.indexOf('| setting |')),
    );
    const names = new Set<string>();
    for (const page of PAGES)
      for (const [, name] of text(page).matchAll(/`([A-Z][A-Z0-9]*_[A-Z0-9_]+)`/g))
        if (!(name! in ERRORS)) names.add(name!);
    for (const [, name] of settingsTable.matchAll(/`([A-Z][A-Z0-9_]+)`/g)) names.add(name!);
    expect(names.size).toBeGreaterThan(20);
    expect([...names].filter((name) => !sources.includes(name))).toEqual([]);
  });

  it('the decision records index lists every record, and no heading dates itself', () => {
    const folder = join(REPO_ROOT, 'docs/decisions');
    const records = readdirSync(folder).filter((name) => name.endsWith('.md') && name !== 'README.md');
    const index = text(join(folder, 'README.md'));
    expect(records.length).toBeGreaterThan(20);
    expect(records.filter((name) => !index.includes(`](${name})`))).toEqual([]);
    const dated = records.flatMap((name) =>
      [...withoutCode(text(join(folder, name))).matchAll(/^#{1,6} (.+)$/gm)]
        .map(([, heading]) => heading!)
        .filter((heading) => /\b(session \d+|issue #\d+|20\d\d-\d\d-\d\d)/i.test(heading))
        .map((heading) => `${name}: ${heading}`),
    );
    expect(dated).toEqual([]);
  });
});
