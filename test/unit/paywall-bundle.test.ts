/**
 * What `admin paywalls upload` accepts as a bundle (cli/paywall-bundle.ts): tables of entry names
 * and directories, then real zips built with fflate's writer, a stored one and a deflated one, a
 * truncated one and one whose directory lies about a size.
 */
import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { bundleEntryProblems, checkBundle, unsafeEntryName } from '../../cli/paywall-bundle.js';
import { MAX_BUNDLE_BYTES, MAX_BUNDLE_FILES, MAX_BUNDLE_UNZIPPED_BYTES } from '../../lib/schemas/paywall.js';

const text = (s: string) => new TextEncoder().encode(s);
const file = (name: string, originalSize = 10, compression = 8) => ({ name, originalSize, compression });

describe('unsafeEntryName', () => {
  it.each([
    ['index.html', undefined],
    ['assets/app.js', undefined],
    ['assets/', undefined],
    ['a..b/c.js', undefined],
    ['', 'has an empty name'],
    ['/etc/passwd', 'is an absolute path'],
    ['C:/windows/x.js', 'is an absolute path'],
    ['../index.html', 'climbs out of the folder (..)'],
    ['assets/../../x', 'climbs out of the folder (..)'],
    ['assets\\app.js', 'has a backslash in its name (a zip names folders with /)'],
    ['a\0b', 'has a NUL in its name'],
  ])('%j: %s', (name, expected) => {
    expect(unsafeEntryName(name)).toBe(expected);
  });
});

describe('bundleEntryProblems', () => {
  it('accepts index.html at the root with folders and files beside it, and counts the files', () => {
    expect(bundleEntryProblems([file('index.html', 100), file('assets/'), file('assets/app.js', 50, 0)])).toEqual({
      problems: [],
      facts: { files: 2, unzippedBytes: 150 },
    });
  });

  it.each([
    [[file('page.html')], ['has no index.html at its root (the page the app opens)']],
    [
      [file('dist/'), file('dist/index.html')],
      ["index.html is not at the zip's root but at dist/index.html: zip the folder's contents, not the folder"],
    ],
    [[file('index.html'), file('index.html')], ['"index.html" is in the zip twice']],
    [
      [file('index.html'), file('x.js', 10, 14)],
      ['"x.js" is compressed with method 14 (only stored and deflated are read by every unzipper)'],
    ],
    [[file('index.html'), file('../x.js')], ['"../x.js" climbs out of the folder (..)']],
  ])('refuses %j', (entries, problems) => {
    expect(bundleEntryProblems(entries).problems).toEqual(problems);
  });

  it('lists every problem at once', () => {
    const entries = [file('/abs.js'), file('a\\b'), file('b.js', 10, 12)];
    expect(bundleEntryProblems(entries).problems).toHaveLength(4);
  });

  it('refuses more files, or more bytes unzipped, than a bundle may have', () => {
    const many = [file('index.html'), ...Array.from({ length: MAX_BUNDLE_FILES }, (_, i) => file(`f${i}.js`, 1))];
    expect(bundleEntryProblems(many).problems).toEqual([
      `has ${MAX_BUNDLE_FILES + 1} files, more than ${MAX_BUNDLE_FILES}`,
    ]);
    expect(bundleEntryProblems(many.slice(0, MAX_BUNDLE_FILES)).problems).toEqual([]);
    const big = [file('index.html', MAX_BUNDLE_UNZIPPED_BYTES), file('a.js', 1)];
    expect(bundleEntryProblems(big).problems).toEqual([
      `unzips to ${MAX_BUNDLE_UNZIPPED_BYTES + 1} bytes, more than ${MAX_BUNDLE_UNZIPPED_BYTES}`,
    ]);
    expect(bundleEntryProblems(big.slice(0, 1)).problems).toEqual([]);
  });
});

describe('checkBundle on real zips', () => {
  const page = text('<!doctype html><title>Go premium</title><script src="app.js"></script>');

  it('reads a deflated zip and a stored one whole', () => {
    for (const level of [0, 6] as const) {
      const zip = zipSync({ 'index.html': page, 'app.js': text('console.log(1)'), 'img/': {} }, { level });
      expect(checkBundle(zip)).toEqual({ problems: [], facts: { files: 2, unzippedBytes: page.byteLength + 14 } });
    }
  });

  it('refuses what is not a zip, a truncated zip, and an entry whose data does not inflate', () => {
    expect(checkBundle(text('<html>not a zip</html>')).problems[0]).toMatch(/^is not a readable zip \(/);
    const zip = zipSync({ 'index.html': page });
    expect(checkBundle(zip.slice(0, zip.byteLength - 10)).problems[0]).toMatch(/^is not a readable zip \(/);
    // The deflated data of index.html overwritten with bytes that are no deflate stream.
    const broken = zipSync({ 'index.html': new Uint8Array(4000).fill(65) }, { level: 6 });
    const dataAt = 30 + 'index.html'.length;
    broken.fill(0xff, dataAt, dataAt + 8);
    expect(checkBundle(broken).problems).toEqual(['has an entry that cannot be unzipped (invalid block type)']);
  });

  /** The zip with its central directory entry's uncompressed size (offset 24) set to `size`. */
  const declaring = (zip: Uint8Array, size: number) => {
    const central = zip.findLastIndex(
      (_, i) => zip[i] === 0x50 && zip[i + 1] === 0x4b && zip[i + 2] === 1 && zip[i + 3] === 2,
    );
    new DataView(zip.buffer).setUint32(central + 24, size, true);
    return zip;
  };

  it('refuses a zip whose directory says another size than its data unzips to', () => {
    const { problems } = checkBundle(declaring(zipSync({ 'index.html': page }, { level: 0 }), page.byteLength + 1));
    expect(problems).toEqual([
      `"index.html" does not unzip to what its directory entry says (${page.byteLength + 1} bytes and their CRC-32)`,
    ]);
  });

  it('refuses an entry that inflates to more than its directory declares (a zip bomb declares little)', () => {
    const zip = declaring(zipSync({ 'index.html': new Uint8Array(4000).fill(65) }, { level: 6 }), 10);
    expect(checkBundle(zip)).toEqual({
      problems: ['"index.html" does not unzip to what its directory entry says (10 bytes and their CRC-32)'],
      facts: { files: 1, unzippedBytes: 10 },
    });
  });

  it(`refuses a zip over ${MAX_BUNDLE_BYTES} bytes before reading it`, () => {
    expect(checkBundle(new Uint8Array(MAX_BUNDLE_BYTES + 1)).problems).toEqual([
      `takes ${MAX_BUNDLE_BYTES + 1} bytes, more than ${MAX_BUNDLE_BYTES}`,
    ]);
  });
});
