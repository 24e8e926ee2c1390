import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

const candidates = (): string[] =>
  process.env.CHROMIUM_PATH ? [process.env.CHROMIUM_PATH] : ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

/**
 * The system's Chromium (Debian's `chromium` package), never a downloaded one: CHROMIUM_PATH when set,
 * else the usual install paths. Undefined when there is none, and the browser tests say so and skip.
 */
export function chromiumPath(): string | undefined {
  return candidates().find((p) => existsSync(p));
}

export const noChromium = (): string =>
  `no Chromium at ${candidates().join(' or ')}: install Debian's with \`apt-get install -y chromium\` or set CHROMIUM_PATH`;

/** Headless, and quiet on a closed network: no background connections Chromium would make on its own. */
export function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}
