/**
 * What the dashboard's browser suites share: the running layout and its callback receiver, the
 * Chromium they launch, where screenshots go, and the locators by accessible name.
 */
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import type { RunningLayout } from './layouts';
import { LoopbackReceiver } from './loopback-receiver';

export const REPORTS = join(__dirname, '..', '..', 'reports', 'dashboard');
/** Each step's own budget: a distributed layout on a loaded 2-core machine is slow, never stuck. */
export const STEP_TIMEOUT_MS = 90_000;

/** What a layout's suite shares with the flow: the running layout and the merchant's callback endpoint. */
export interface Running {
  layout: RunningLayout;
  receiver: LoopbackReceiver;
}

/**
 * Starts the layout and the callback receiver before the describe block's tests and stops both
 * after them, failed or not. Read the answer inside tests.
 */
export function useLayout(start: () => Promise<RunningLayout>, timeoutMs = 180_000): () => Running {
  let layout: RunningLayout | undefined;
  let receiver: LoopbackReceiver | undefined;
  beforeAll(async () => {
    receiver = await LoopbackReceiver.start();
    layout = await start();
  }, timeoutMs);
  afterAll(async () => {
    try {
      await layout?.close();
    } finally {
      await receiver?.close();
    }
  }, 60_000);
  return () => {
    if (!layout || !receiver) throw new Error('the layout did not start (see beforeAll)');
    return { layout, receiver };
  };
}

export const pathOf = (page: Page) => new URL(page.url()).pathname;

/** The section a heading names: the heading's nearest enclosing <section>. */
export const sectionNamed = (page: Page, heading: string): Locator =>
  page.getByRole('heading', { name: heading, exact: true }).locator('xpath=ancestor::section[1]');

export const navLink = (page: Page, name: string): Locator =>
  page.getByRole('navigation').getByRole('link', { name, exact: true });

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  // Nothing but the pages the test opens: no update checks, sync or background fetches, and no
  // host name resolves (the pages are all at 127.0.0.1).
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
