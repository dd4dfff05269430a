/**
 * What `admin paywalls upload` accepts as a bundle: a zip an app's web view can open as it
 * unzips it (the DingYue SDK unzips into its own folder and loads `index.html` there:
 * API/ApiManager.swift:250-251, API/DYMPayWallController.swift:192-195 at ee4e11c). Read whole
 * with fflate: its central directory, then every entry inflated into the size the directory
 * declares and checked against the directory's CRC-32 (fflate stops at the declared size, so a
 * zip that inflates to more fails the CRC). Every problem is listed.
 */
import { crc32 } from 'node:zlib';
import { unzipSync } from 'fflate';
import { MAX_BUNDLE_BYTES, MAX_BUNDLE_FILES, MAX_BUNDLE_UNZIPPED_BYTES } from '../lib/schemas/paywall.js';

/** An entry as the central directory lists it. */
export interface BundleEntry {
  name: string;
  originalSize: number;
  /** APPNOTE 4.4.5: 0 stored, 8 deflated; the only two every unzipper reads. */
  compression: number;
}

export interface BundleFacts {
  files: number;
  unzippedBytes: number;
}

const isDirectory = (entry: BundleEntry) => entry.name.endsWith('/');

/** Why this entry's name cannot be unzipped safely into the app's folder, if it cannot. */
export function unsafeEntryName(name: string): string | undefined {
  if (name === '') return 'has an empty name';
  if (name.includes('\\')) return 'has a backslash in its name (a zip names folders with /)';
  if (name.includes('\0')) return 'has a NUL in its name';
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return 'is an absolute path';
  if (name.split('/').includes('..')) return 'climbs out of the folder (..)';
  return undefined;
}

/** Every problem of a bundle's entries (empty: it can be served), with its counts. */
export function bundleEntryProblems(entries: BundleEntry[]): { problems: string[]; facts: BundleFacts } {
  const problems: string[] = [];
  const files = entries.filter((entry) => !isDirectory(entry));
  const seen = new Set<string>();
  for (const entry of entries) {
    const unsafe = unsafeEntryName(entry.name);
    if (unsafe) problems.push(`${JSON.stringify(entry.name)} ${unsafe}`);
    if (seen.has(entry.name)) problems.push(`${JSON.stringify(entry.name)} is in the zip twice`);
    seen.add(entry.name);
    if (!isDirectory(entry) && entry.compression !== 0 && entry.compression !== 8)
      problems.push(
        `${JSON.stringify(entry.name)} is compressed with method ${entry.compression} (only stored and deflated are read by every unzipper)`,
      );
  }
  if (!seen.has('index.html')) {
    const nested = files.find((entry) => entry.name.endsWith('/index.html'));
    problems.push(
      nested
        ? `index.html is not at the zip's root but at ${nested.name}: zip the folder's contents, not the folder`
        : 'has no index.html at its root (the page the app opens)',
    );
  }
  if (files.length > MAX_BUNDLE_FILES) problems.push(`has ${files.length} files, more than ${MAX_BUNDLE_FILES}`);
  const unzippedBytes = files.reduce((sum, entry) => sum + entry.originalSize, 0);
  if (unzippedBytes > MAX_BUNDLE_UNZIPPED_BYTES)
    problems.push(`unzips to ${unzippedBytes} bytes, more than ${MAX_BUNDLE_UNZIPPED_BYTES}`);
  return { problems, facts: { files: files.length, unzippedBytes } };
}

/** The CRC-32 of each entry, in the central directory's order (APPNOTE 4.3.12, 4.3.16). */
function centralDirectoryCrcs(zip: Uint8Array): number[] {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  let end = zip.byteLength - 22;
  while (end >= 0 && view.getUint32(end, true) !== 0x06054b50) end--;
  if (end < 0) return [];
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  const crcs: number[] = [];
  for (let i = 0; i < count && at + 46 <= zip.byteLength && view.getUint32(at, true) === 0x02014b50; i++) {
    crcs.push(view.getUint32(at + 16, true));
    at += 46 + view.getUint16(at + 28, true) + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  return crcs;
}

/** The bundle's problems (empty: valid) and, when its directory could be read, its counts. */
export function checkBundle(zip: Uint8Array): { problems: string[]; facts?: BundleFacts } {
  if (zip.byteLength > MAX_BUNDLE_BYTES)
    return { problems: [`takes ${zip.byteLength} bytes, more than ${MAX_BUNDLE_BYTES}`] };
  const entries: BundleEntry[] = [];
  try {
    // The central directory alone first: nothing is inflated before the sizes are known.
    unzipSync(zip, {
      filter: (file) => {
        entries.push({ name: file.name, originalSize: file.originalSize, compression: file.compression });
        return false;
      },
    });
  } catch (error) {
    return { problems: [`is not a readable zip (${(error as Error).message})`] };
  }
  const { problems, facts } = bundleEntryProblems(entries);
  if (problems.length > 0) return { problems, facts };
  let unzipped: Record<string, Uint8Array>;
  try {
    unzipped = unzipSync(zip);
  } catch (error) {
    return { problems: [`has an entry that cannot be unzipped (${(error as Error).message})`], facts };
  }
  const crcs = centralDirectoryCrcs(zip);
  const misdeclared = entries.filter((entry, i) => {
    const data = unzipped[entry.name];
    return data?.byteLength !== entry.originalSize || (!isDirectory(entry) && crc32(data) !== crcs[i]);
  });
  return {
    problems: misdeclared.map(
      (entry) =>
        `${JSON.stringify(entry.name)} does not unzip to what its directory entry says (${entry.originalSize} bytes and their CRC-32)`,
    ),
    facts,
  };
}
