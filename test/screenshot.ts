/**
 * `npm run screenshot`: regenerates docs/dashboard.png (shown in the README) as a newcomer sees the
 * dashboard after the README's Quick start: the mock started as it says (with its token), its `curl`
 * lines and the conformance run sent (test/support/quick-start.ts), then the link the mock's banner
 * printed opened in headless Chromium; saved once the orders, the records and the API reference have
 * rendered.
 */
import { join } from 'node:path';
import { PROJECT_ROOT } from '../contract/paths.js';
import { launchChromium } from './support/browser.js';
import { runQuickStart } from './support/quick-start.js';

export const SCREENSHOT_PATH = join(PROJECT_ROOT, 'docs', 'dashboard.png');

export async function takeDashboardScreenshot(path = SCREENSHOT_PATH): Promise<void> {
  const quickStart = await runQuickStart({ conformance: true });
  const browser = await launchChromium({ viewport: { width: 1280, height: 800 } }).catch(async (error: unknown) => {
    await quickStart.stop();
    throw error;
  });
  try {
    const page = await browser.newPage();
    await page.goto(quickStart.dashboard);
    await page.waitForSelector('section.records tbody tr');
    await page.waitForSelector('article.order tr[data-lot]');
    await page.waitForSelector('#swagger-ui .opblock');
    if ((await page.locator('article.order .error').count()) > 0)
      throw new Error(`the dashboard shows an error: ${await page.textContent('#orders')}`);
    await page.screenshot({ path, fullPage: true });
  } finally {
    await browser.close();
    await quickStart.stop();
  }
}

await takeDashboardScreenshot();
console.log(`wrote ${SCREENSHOT_PATH}`);
