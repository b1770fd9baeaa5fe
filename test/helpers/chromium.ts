import { existsSync } from 'node:fs';

/** Debian's chromium (.ci/run installs it when missing); playwright-core drives it and downloads nothing. */
export const CHROMIUM = '/usr/bin/chromium';
/** Headless, sandbox-less (containers), and quiet: no updates, sync or background traffic. */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Whether chromium is installed; without it, browser suites skip and print why. */
export function chromiumOrSkip(suite: string, what: string): boolean {
  const present = existsSync(CHROMIUM);
  if (!present) console.warn(`${suite}: SKIPPED, ${CHROMIUM} is absent (apt-get install chromium); ${what} is not checked in a browser`);
  return present;
}
