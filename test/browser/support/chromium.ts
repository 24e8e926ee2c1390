import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/**
 * The system's Chromium (Debian's `chromium` package), never a downloaded one: CHROMIUM_PATH, else the
 * usual install paths. Undefined when there is none, and the browser tests say so and skip.
 */
export function chromiumPath(): string | undefined {
  return [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p): p is string => Boolean(p) && existsSync(p as string));
}

export const NO_CHROMIUM = 'no Chromium found (CHROMIUM_PATH, /usr/bin/chromium): install it with `apt-get install -y chromium`';

/** Headless, and quiet on a closed network: no background connections Chromium would make on its own. */
export function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}
