/**
 * A real headless browser for tests of what Lineup draws: Debian's Chromium (installed by
 * test/integration/setup.sh, or named by $LINEUP_CHROMIUM) driven through puppeteer-core, which
 * downloads nothing. A test that needs it and finds no Chromium fails, saying what to install.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { launch, type Browser } from 'puppeteer-core';

/** ARTIFACTS_DIR: where tests keep what a person may want to look at after a run (screenshots). */
export const ARTIFACTS_DIR = fileURLToPath(new URL('../../../test-artifacts/', import.meta.url));

/** chromiumPath: $LINEUP_CHROMIUM, or the chromium on PATH; throws naming the fix when there is none. */
export const chromiumPath = (): string => {
  const named = process.env.LINEUP_CHROMIUM;
  if (named !== undefined && named !== '') {
    if (!existsSync(named)) throw new Error(`LINEUP_CHROMIUM=${named} does not exist`);
    return named;
  }
  try {
    return execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim();
  } catch (error) {
    throw new Error('no chromium on PATH: run bash test/integration/setup.sh (it installs Debian\'s chromium) or set LINEUP_CHROMIUM', { cause: error });
  }
};

/** startBrowser: headless Chromium; close it in `after`. */
export const startBrowser = async (): Promise<Browser> =>
  launch({
    executablePath: chromiumPath(),
    headless: true,
    // Tests run as root in CI, where Chromium's sandbox cannot start.
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });

/** artifactPath: a file under ARTIFACTS_DIR (created). */
export const artifactPath = (name: string): string => {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  return `${ARTIFACTS_DIR}${name}`;
};
