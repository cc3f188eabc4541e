/**
 * Regenerates the screenshots in docs/ from the pages as Lineup draws them today, with the same
 * headless Chromium the browser tests use (test/integration/setup.sh installs it):
 *
 *   node test/integration/render/screenshots.ts
 *
 * docs/timeline-story2.png       `lineup simulate` of story 2, the whole page
 * docs/replay-story2-differs.png `lineup replay` of story 2's demo journal, one pass's reason edited, the whole page
 * docs/history-restart-failed.png `lineup history` of a JobSet that failed after one restart, as a 1400×900 window shows it
 */
import { fileURLToPath } from 'node:url';
import { startBrowser } from '../harness/browser.ts';
import { failurePages, simulatePage, story2Pages } from './pages.ts';

const DOCS = fileURLToPath(new URL('../../../docs/', import.meta.url));

const shots: { file: string; html: string; fullPage: boolean }[] = [
  { file: 'timeline-story2.png', html: simulatePage(), fullPage: true },
  { file: 'replay-story2-differs.png', html: story2Pages().replay, fullPage: true },
  { file: 'history-restart-failed.png', html: (await failurePages()).history, fullPage: false },
];
const browser = await startBrowser();
try {
  for (const shot of shots) {
    const page = await browser.newPage();
    await page.setViewport({ width: 1400, height: 900 });
    // Loaded from a string, not a file: the page fetches nothing, so nothing needs a base URL.
    await page.setContent(shot.html, { waitUntil: 'load' });
    await page.screenshot({ path: `${DOCS}${shot.file}`, fullPage: shot.fullPage });
    await page.close();
    process.stdout.write(`docs/${shot.file}\n`);
  }
} finally {
  await browser.close();
}
