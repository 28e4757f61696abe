/**
 * `npm run screenshot`: regenerates docs/dashboard.png (shown in the README): starts the mock on a
 * free port, records a few transfers and samples through the typed client, opens the dashboard in
 * headless Chromium and saves a screenshot once the API reference has rendered.
 */
import { join } from 'node:path';
import { createGoodsClient } from '../client/index.js';
import { PROJECT_ROOT } from '../contract/paths.js';
import { createMockServer } from '../mock/index.js';
import { launchChromium } from './support/browser.js';

export const SCREENSHOT_PATH = join(PROJECT_ROOT, 'docs', 'dashboard.png');

export async function takeDashboardScreenshot(path = SCREENSHOT_PATH): Promise<void> {
  const mock = await createMockServer({ port: 0, quiet: true });
  const browser = await launchChromium({ viewport: { width: 1280, height: 800 } }).catch(async (error: unknown) => {
    await mock.close();
    throw error;
  });
  try {
    const api = createGoodsClient({ baseUrl: mock.url, token: 'screenshot' });
    await api.createLotTransfer({ fk_lot_id: 2001, source_scancode: 'DOCK-1', target_scancode: 'SHELF-A3', amount: 120 });
    await api.createLotTransfer({ fk_lot_id: 2201, source_scancode: 'SHELF-A3', target_scancode: 'LAB-2', amount: 0.5, completed: true });
    await api.createTestSample({ fk_lot_id: 2001, fk_user_id: 42 });
    await api.createTestSample({ fk_lot_id: 2202, fk_user_id: 7, status: 'IN_LAB', notes: 'moisture check' });
    const page = await browser.newPage();
    await page.goto(`${mock.url}/__mock/`);
    await page.waitForSelector('section.records tbody tr[data-id="2"]');
    await page.waitForSelector('article.order tr[data-lot]');
    await page.waitForSelector('#swagger-ui .opblock');
    await page.screenshot({ path, fullPage: true });
  } finally {
    await browser.close();
    await mock.close();
  }
}

await takeDashboardScreenshot();
console.log(`wrote ${SCREENSHOT_PATH}`);
