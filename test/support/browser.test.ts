/** The browser launcher refuses clearly when Chromium is missing (the tests fail, never skip). */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { CHROMIUM_PATH, launchChromium } from './browser.js';

describe('browser launcher (test/support/browser.ts)', () => {
  it('fails with the install command when the Chromium binary is missing, downloading nothing', async () => {
    await assert.rejects(
      launchChromium({ executablePath: '/nonexistent/chromium' }),
      /^Error: \/nonexistent\/chromium is missing: the browser tests need Debian's chromium package \(`apt-get update && apt-get install -y chromium`; \.ci\/run installs it\)\. No browser is downloaded\.$/,
    );
  });

  it('Debian Chromium is installed where the browser tests expect it', () => {
    assert.ok(existsSync(CHROMIUM_PATH), `${CHROMIUM_PATH} is missing: apt-get update && apt-get install -y chromium`);
  });
});
