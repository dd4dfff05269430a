import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { esbuildOptions } from '../../cdk/constructs/service-function.js';
import { createTestApp, type TestApp } from '../support/fixtures.js';
import { REPO_ROOT, runNode } from '../support/processes.js';

/**
 * The deployed artefact, not the source: bundle a handler exactly as the stack does (minified ESM,
 * AWS SDK inside), load it in a fresh Node 24 process with nothing but the bundle, and serve a request.
 */
describe('a bundled function', () => {
  let app: TestApp;
  let dir: string;
  beforeAll(async () => {
    app = await createTestApp();
    dir = await mkdtemp(join(tmpdir(), 'bundle-'));
    await build(esbuildOptions('functions/subscriptions/products.ts', join(dir, 'index.mjs')));
  });

  it('loads in a fresh Node 24 process and serves a request against DynamoDB', async () => {
    const script = join(dir, 'invoke.mjs');
    await writeFile(
      script,
      `const { handler } = await import('./index.mjs');
       const result = await handler({ resource: '/v1/subscriptions/products', path: '/v1/subscriptions/products', httpMethod: 'GET',
         headers: { Authorization: 'Bearer ' + process.env.KEY }, queryStringParameters: null, multiValueQueryStringParameters: null,
         pathParameters: null, body: null, isBase64Encoded: false, requestContext: { requestId: 'bundle' } },
         { awsRequestId: 'bundle', getRemainingTimeInMillis: () => 10000 });
       // Node's own modules loaded so far: undici is among them only if something built node:http's ESM namespace.
       const undici = process.moduleLoadList.some((name) => name.includes('undici'));
       process.stdout.write(JSON.stringify({ ...result, undici }));`,
    );
    // cwd is the temp dir: the bundle may not reach the repository's node_modules.
    const result = await runNode(script, { KEY: app.secretKey, AWS_LAMBDA_FUNCTION_NAME: 'ListProducts' }, dir);
    expect(result.stderr).toBe('');
    const response = JSON.parse(result.stdout);
    expect(response.statusCode).toBe(200);
    // The request went over node:http (DynamoDB Local's endpoint), loaded through require().
    expect(response.undici).toBe(false);
    expect(
      JSON.parse(response.body)
        .data.map((p: { id: string }) => p.id)
        .sort(),
    ).toEqual(['premium_monthly', 'pro_yearly', 'retired_plan']);
  });

  it("imports node:http's exports without an ESM import of it, which would load undici", async () => {
    const script = join(dir, 'node-http.mjs');
    await writeFile(
      script,
      `const loaded = () => process.moduleLoadList.some((name) => name.includes('undici'));
       const before = loaded();
       const shim = await import(process.env.SHIM);
       const viaShim = loaded();
       const http = await import('node:http');
       process.stdout.write(JSON.stringify({ before, viaShim, viaImport: loaded(), same: shim.request === http.request && shim.Agent === http.Agent && shim.default === http.default }));`,
    );
    const shim = join(dir, 'node-http-shim.mjs');
    await build({ ...esbuildOptions('lib/core/node-http.ts', shim), sourcemap: false });
    const result = await runNode(script, { SHIM: shim }, dir);
    expect(result.stderr).toBe('');
    // The control shows the check can fail: a plain ESM import of node:http loads undici.
    expect(JSON.parse(result.stdout)).toEqual({ before: false, viaShim: false, viaImport: true, same: true });
  });

  it('names the original file and line in a stack trace, reading the source map only when a stack is formatted', async () => {
    // A module of the bundle's own and a lib/ module under it, each at a line we can name.
    const entry = join(dir, 'fails.ts');
    await writeFile(
      entry,
      `import { AppError } from ${JSON.stringify(join(REPO_ROOT, 'lib/core/errors.ts'))};\n` +
        'export function fail(): string {\n' +
        "  return new AppError('INTERNAL_ERROR').withHeaders({}).stack ?? '';\n" +
        '}\n',
    );
    const errorsSource = readFileSync(join(REPO_ROOT, 'lib/core/errors.ts'), 'utf8').split('\n');
    const withHeadersLine = errorsSource.findIndex((line) => line.includes('return new AppError(this.kind')) + 1;
    const withHeadersColumn = errorsSource[withHeadersLine - 1]!.indexOf('new AppError') + 1;
    const script = join(dir, 'fails-invoke.mjs');
    await writeFile(
      script,
      `import { unlinkSync } from 'node:fs';
       const { fail } = await import(process.env.BUNDLE);
       if (process.env.REMOVE_MAP) unlinkSync(process.env.BUNDLE + '.map');
       process.stdout.write(fail());`,
    );
    await build(esbuildOptions(entry, join(dir, 'fails', 'index.mjs')));
    const mapped = await runNode(script, { BUNDLE: './fails/index.mjs' }, dir);
    expect(mapped.stderr).toBe('');
    const lines = mapped.stdout.split('\n');
    expect(lines[0]).toBe('AppError: Internal error');
    // Frames keep the bundle's (minified) names; their positions are the sources'.
    expect(lines[1]).toMatch(
      new RegExp(`^ {4}at \\w+\\.withHeaders \\(lib/core/errors\\.ts:${withHeadersLine}:${withHeadersColumn}\\)$`),
    );
    expect(lines[2]).toMatch(/^ {4}at \w+ \(\.\.\/fails\.ts:3:\d+\)$/);
    expect(mapped.stdout).not.toContain('index.mjs:');

    // Not read at import: a map gone after the bundle loaded leaves the positions as they are.
    const lazy = await runNode(script, { BUNDLE: './fails/index.mjs', REMOVE_MAP: '1' }, dir);
    expect(lazy.stderr).toBe('');
    expect(lazy.stdout.split('\n')[1]).toMatch(/^ {4}at \w+\.withHeaders \(file:\/\/.*\/fails\/index\.mjs:\d+:\d+\)$/);

    // The control: without the injected formatter, the same bundle's stack names minified positions.
    await build({ ...esbuildOptions(entry, join(dir, 'fails-raw', 'index.mjs')), inject: [] });
    const raw = await runNode(script, { BUNDLE: './fails-raw/index.mjs' }, dir);
    expect(raw.stdout).toMatch(/fails-raw\/index\.mjs:\d+:\d+\)/);
    expect(raw.stdout).not.toContain('lib/core/errors.ts');
  });
});
