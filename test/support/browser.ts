/**
 * Headless Chromium for the browser tests: Debian's `chromium` package at /usr/bin/chromium, driven
 * by playwright-core, with a fresh profile per launch. No browser is ever downloaded: when the binary
 * is missing the launch fails, saying how to install it.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Chromium {
  context: BrowserContext;
  /** A new tab that records page errors and console errors (see `problems`). */
  newPage(): Promise<Page>;
  /** Uncaught page errors and console errors seen so far, in every tab. */
  problems: string[];
  close(): Promise<void>;
}

export interface LaunchOptions {
  viewport?: { width: number; height: number };
  /** Only for testing the missing-browser message; the tests use Debian's binary. */
  executablePath?: string;
  /** Extra Chromium switches (e.g. `--host-resolver-rules` to point a test name at loopback). */
  args?: string[];
}

export async function launchChromium(options: LaunchOptions = {}): Promise<Chromium> {
  const executablePath = options.executablePath ?? CHROMIUM_PATH;
  const viewport = options.viewport ?? { width: 1280, height: 900 };
  if (!existsSync(executablePath)) {
    throw new Error(
      `${executablePath} is missing: the browser tests need Debian's chromium package ` +
        '(`apt-get update && apt-get install -y chromium`; .ci/run installs it). No browser is downloaded.',
    );
  }
  const userDataDir = await mkdtemp(join(tmpdir(), 'goods-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath,
      headless: true,
      args: [...CHROMIUM_ARGS, ...(options.args ?? [])],
      viewport,
      timeout: 20_000,
    });
  } catch (error) {
    await rm(userDataDir, { recursive: true, force: true });
    throw error;
  }
  const problems: string[] = [];
  const watch = (page: Page): Page => {
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
    });
    return page;
  };
  return {
    context,
    problems,
    newPage: async () => watch(await context.newPage()),
    async close() {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}
