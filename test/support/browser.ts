/// <reference lib="dom" />
/**
 * Real headless Chromium for the console's tests: Debian's package (/usr/bin/chromium, which
 * .ci/run installs), driven by playwright-core; never a browser downloaded by a test tool.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type Browser, chromium, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is not at ${CHROMIUM}: install Debian's package (apt-get install chromium), as .ci/run does`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // This machine's network is closed: Chromium's own background connections only fail slowly.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * axe-core's serious and critical violations on the page as it is now. axe is evaluated through
 * the DevTools protocol, which the page's CSP does not govern (an injected <script> it would block).
 */
export async function accessibilityViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document, options: unknown) => Promise<any> } }).axe;
    const results = await axe.run(document, { resultTypes: ['violations'] });
    return results.violations
      .filter((v: { impact: string | null }) => v.impact === 'serious' || v.impact === 'critical')
      .map((v: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        nodes: v.nodes.map((n) => n.target.join(' ')),
      }));
  });
}
