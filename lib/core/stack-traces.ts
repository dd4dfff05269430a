/**
 * Stack traces of a bundled function name the original source file, line and column. esbuild
 * injects stack-traces-in-bundle.ts, which installs this formatter, into every bundle
 * (cdk/constructs/service-function.ts); unbundled (`npm start`, the tests) nothing installs it.
 * The bundle's source map is read when a stack is first formatted, not at every cold start as
 * `--enable-source-maps` would (docs/decisions/bundling.md).
 */
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

type Origin = { fileName?: string; lineNumber?: number; columnNumber?: number };

/** The source map's sources are relative to the map; from the repository's root they read as in the code. */
const sourcePath = (fileName: string) =>
  fileName.replace(/^(?:file:\/\/)?(?:.*?\/)?(?=(?:lib|functions|node_modules)\/)/, '');

/**
 * `frame` (as V8 formats a call site) with every position in `bundleUrl` replaced by its origin,
 * as `findOrigin` (1-based lines and columns, SourceMap#findOrigin's contract) finds it; a
 * position the map does not cover is left as it is.
 */
export function originalFrame(
  frame: string,
  bundleUrl: string,
  findOrigin: (line: number, column: number) => Origin,
): string {
  const escaped = bundleUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return frame.replace(new RegExp(`${escaped}:(\\d+):(\\d+)`, 'g'), (position, line: string, column: string) => {
    const origin = findOrigin(Number(line), Number(column));
    return origin.fileName && origin.lineNumber !== undefined && origin.columnNumber !== undefined
      ? `${sourcePath(origin.fileName)}:${origin.lineNumber}:${origin.columnNumber}`
      : position;
  });
}

/** The first line of a stack, as V8 writes it; an error whose toString throws is named by its class. */
export function headerOf(error: unknown): string {
  try {
    return String(error);
  } catch {
    return Object.prototype.toString.call(error);
  }
}

/** Installs the stack formatter for the bundle at `bundleUrl`, its map at `${path}.map`. */
export function mapStackTraces(bundleUrl: string): void {
  let sourceMap: SourceMap | null | undefined;
  const loaded = (): SourceMap | null => {
    if (sourceMap === undefined) {
      try {
        sourceMap = new SourceMap(JSON.parse(readFileSync(`${fileURLToPath(bundleUrl)}.map`, 'utf8')));
      } catch {
        sourceMap = null;
      }
    }
    return sourceMap;
  };
  const mapped = (frame: string): string => {
    const map = loaded();
    if (!map) return frame;
    try {
      return originalFrame(frame, bundleUrl, (line, column) => map.findOrigin(line, column));
    } catch {
      // A stack is still written when its map cannot be read: the frame as V8 wrote it.
      return frame;
    }
  };
  Error.prepareStackTrace = (error, callSites) =>
    headerOf(error) + callSites.map((site) => `\n    at ${mapped(String(site))}`).join('');
}
