/** The console's build: within the size budget, nothing inline, the API URL escaped into index.html. */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { buildConsole, CONSOLE_MAX_GZIP_BYTES, consoleHtml } from '../../console/build.js';

describe('the console build', () => {
  const files = buildConsole({ apiUrl: 'https://abc123.execute-api.eu-west-1.amazonaws.com/prod/' });

  it('is three files, all of it at most 200 KB gzipped', () => {
    expect([...files.keys()].sort()).toEqual(['app.css', 'app.js', 'index.html']);
    const gzipped = [...files.values()].reduce((sum, file) => sum + gzipSync(file.body).length, 0);
    expect(CONSOLE_MAX_GZIP_BYTES).toBe(204_800);
    expect(gzipped).toBeLessThanOrEqual(CONSOLE_MAX_GZIP_BYTES);
    // Preact and uPlot are in it (a build that lost them would be small for the wrong reason).
    expect(gzipped).toBeGreaterThan(25_000);
  });

  it('has no inline script or style for the CSP to refuse', () => {
    const html = files.get('index.html')!.body.toString();
    expect(html).toContain('<script type="module" src="./app.js"></script>');
    expect(html).toContain('<link rel="stylesheet" href="./app.css" />');
    expect(html.match(/<script\b[^>]*>/g)).toEqual(['<script type="module" src="./app.js">']);
    expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
  });

  it('carries the API URL in a meta tag, escaped', () => {
    expect(files.get('index.html')!.body.toString()).toContain(
      '<meta name="api-url" content="https://abc123.execute-api.eu-west-1.amazonaws.com/prod/" />',
    );
    expect(consoleHtml('https://x.example/"><script>alert(1)</script>')).toContain(
      'content="https://x.example/&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"',
    );
    expect(consoleHtml('')).toContain('<meta name="api-url" content="" />');
  });
});
