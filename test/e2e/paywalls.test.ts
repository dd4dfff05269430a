/**
 * Paywall and guide page bundles as an operator and an app use them: `admin paywalls upload` run
 * as a process (every problem of a zip listed, nothing stored), offerings naming them, both APIs
 * answering each bundle's download URL, and the bundle downloaded over HTTP from that URL as
 * `npm start` serves it (CloudFront in AWS: test/cdk/stack.test.ts, the paywall bundles).
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { describe, expect, it, vi } from 'vitest';
import { readPaywalls } from '../../lib/data/paywalls.js';
import { CUSTOMERS_BASE, OFFERINGS_PATH } from '../../lib/routes.js';
import { createTestApp, type TestApp } from '../support/fixtures.js';
import { useGateway } from '../support/http.js';
import { mobileHeaders } from '../support/mobile.js';
import { admin } from '../support/processes.js';

const folders = vi.hoisted(() => {
  // The CLI (a child process) and the gateway share the bundles' folder, as with `npm start`.
  const { mkdtempSync } = require('node:fs') as typeof import('node:fs');
  const { join: joinPath } = require('node:path') as typeof import('node:path');
  const { tmpdir: tmp } = require('node:os') as typeof import('node:os');
  process.env.PAYWALLS_DIR = mkdtempSync(joinPath(tmp(), 'paywalls-'));
  process.env.OFFERINGS_CACHE_TTL_SECONDS = '0';
  return { paywalls: process.env.PAYWALLS_DIR };
});

const { request, send } = useGateway({ paywalls: true });

const text = (s: string) => new TextEncoder().encode(s);
async function zipFile(files: Record<string, Uint8Array>): Promise<{ file: string; bytes: Uint8Array }> {
  const bytes = zipSync(files);
  const file = join(await mkdtemp(join(tmpdir(), 'bundle-')), 'bundle.zip');
  await writeFile(file, bytes);
  return { file, bytes };
}
const json = (stdout: string) => JSON.parse(stdout) as Record<string, any>;
const upload = (app: TestApp, id: string, file: string, ...more: string[]) =>
  admin('paywalls', 'upload', '--app', app.appId, '--id', id, '--file', file, ...more, '--json');

async function download(url: string) {
  const { pathname } = new URL(url);
  return send('GET', pathname);
}

describe('paywall bundles', () => {
  it('lists every problem of a zip and of its options, and stores nothing', async () => {
    const app = await createTestApp();
    const { file } = await zipFile({
      'page.html': text('<html>'),
      '../escape.js': text('x'),
      'dist/index.html': text(''),
    });
    const result = await upload(app, 'bad id!', file);
    expect(result.code).toBe(1);
    const error = json(result.stdout).error;
    expect(error.code).toBe('INVALID_FILE');
    for (const problem of [
      '--id must be 1-64 characters of letters, digits, _ -',
      'the zip "../escape.js" climbs out of the folder (..)',
      "the zip index.html is not at the zip's root but at dist/index.html",
    ])
      expect(error.message).toContain(problem);
    const notZip = join(await mkdtemp(join(tmpdir(), 'bundle-')), 'page.html');
    await writeFile(notZip, '<html></html>');
    expect(json((await upload(app, 'main', notZip)).stdout).error.message).toContain('the zip is not a readable zip');
    expect((await readPaywalls(app.appId)).paywalls).toEqual([]);
    expect(await readdir(folders.paywalls).catch(() => [])).not.toContain(app.appId);
  });

  it('stores each upload as the next version, answers its URL in both APIs, and serves it from there', async () => {
    const app = await createTestApp();
    const first = await zipFile({ 'index.html': text('<h1>Version one</h1>'), 'app.js': text('go()') });
    const result = await upload(app, 'main', first.file, '--name', 'Spring sale');
    expect(result.code, result.stderr).toBe(0);
    const stored = json(result.stdout);
    const sha256 = createHash('sha256').update(first.bytes).digest('hex');
    expect(stored.paywall).toMatchObject({ id: 'main', name: 'Spring sale', version: 1, sha256, files: 2 });
    expect(stored.stored_at).toBe(join(folders.paywalls, app.appId, 'main', `${sha256}.zip`));

    // An offering names it; one naming a bundle never uploaded is refused, with the command to run.
    const offerings = join(await mkdtemp(join(tmpdir(), 'offerings-')), 'offerings.json');
    const document = (paywall: string) => ({
      current: 'standard',
      offerings: [{ id: 'standard', paywall, packages: [{ id: '$rc_monthly', products: { ios: 'premium_monthly' } }] }],
      placements: [
        {
          id: 'onboarding',
          default: 'standard',
          guide_page: { id: 'intro' },
          rules: [{ audience: { platform: 'android' }, offering: 'standard', guide_page: { id: 'intro' } }],
        },
      ],
    });
    await writeFile(offerings, JSON.stringify(document('main')));
    const refused = await admin('offerings', 'put', '--app', app.appId, '--file', offerings, '--json');
    expect(json(refused.stdout).error.message).toContain(
      `[placements.0.guide_page.id] paywall intro is not uploaded for ${app.appId} (admin paywalls upload --app ${app.appId} --id intro --file F)`,
    );
    expect(json(refused.stdout).error.message).toContain(
      `[placements.0.rules.0.guide_page.id] paywall intro is not uploaded for ${app.appId}`,
    );
    const guide = await zipFile({ 'index.html': text('<h1>Welcome</h1>') });
    expect((await upload(app, 'intro', guide.file)).code).toBe(0);
    expect((await admin('offerings', 'put', '--app', app.appId, '--file', offerings, '--json')).code).toBe(0);

    const listed = await request('GET', OFFERINGS_PATH, { bearer: app.secretKey });
    expect(listed.status).toBe(200);
    const main = listed.body.data.paywalls.find((p: { id: string }) => p.id === 'main');
    expect(main).toMatchObject({ version: 1, name: 'Spring sale', sha256 });
    expect(main.download_url).toMatch(
      new RegExp(`^http://127\\.0\\.0\\.1:\\d+/paywalls/${app.appId}/main/${sha256}\\.zip$`),
    );
    const downloaded = await download(main.download_url);
    expect(downloaded.status).toBe(200);
    expect(downloaded.headers['content-type']).toBe('application/zip');
    expect(downloaded.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(downloaded.bytes.equals(Buffer.from(first.bytes))).toBe(true);

    // A new upload is version 2 at a new URL; the old URL still serves version 1 (apps cache by it).
    const second = await zipFile({ 'index.html': text('<h1>Version two</h1>') });
    expect(json((await upload(app, 'main', second.file)).stdout).paywall.version).toBe(2);
    const forUser = await request('GET', `${CUSTOMERS_BASE}/reader/offerings`, { bearer: app.secretKey });
    expect(forUser.status).toBe(200);
    expect(forUser.body.data.paywalls.map((p: { id: string; version: number }) => [p.id, p.version])).toEqual([
      ['intro', 1],
      ['main', 2],
    ]);
    const mobile = await request('GET', '/v2/offerings', { headers: mobileHeaders(app, 'reader') });
    expect(mobile.status).toBe(200);
    const current = mobile.body.data.paywalls.find((p: { id: string }) => p.id === 'main');
    expect((await download(current.download_url)).bytes.equals(Buffer.from(second.bytes))).toBe(true);
    expect((await download(main.download_url)).bytes.equals(Buffer.from(first.bytes))).toBe(true);
  });

  it('serves only bundle paths: no other file of the folder, no traversal, GET and HEAD only', async () => {
    await writeFile(join(folders.paywalls, 'secret.txt'), 'not a bundle');
    for (const path of [
      '/paywalls/secret.txt',
      '/paywalls/%2e%2e/package.json',
      `/paywalls/app_0000000000000000/main/${'0'.repeat(64)}.zip`,
      `/paywalls/app_0000000000000000/main/${'0'.repeat(63)}.zip`,
    ]) {
      const res = await send('GET', path);
      expect(res.status, path).toBe(404);
    }
    expect((await send('POST', '/paywalls/x', { body: '{}' })).status).toBe(405);
  });

  it('records concurrent uploads of one id as distinct versions', async () => {
    const app = await createTestApp();
    const bundles = await Promise.all([1, 2, 3].map((n) => zipFile({ 'index.html': text(`<p>${n}</p>`) })));
    const results = await Promise.all(bundles.map(({ file }) => upload(app, 'main', file)));
    expect(results.map((r) => r.code)).toEqual([0, 0, 0]);
    expect(results.map((r) => json(r.stdout).paywall.version).sort()).toEqual([1, 2, 3]);
    expect((await readPaywalls(app.appId)).paywalls.map((p) => p.version)).toEqual([3]);
  });
});
