import {
  TEST_ADMIN_TOKEN,
  TEST_CALLBACK_SETTINGS,
  TEST_MASTER_KEY,
  TEST_RATE_LIMITS,
  TEST_TIMERS,
} from '@paygate/testing';
import { startInProcess, type InProcessPaygate } from '@paygate/standalone';

/**
 * Paygate in the test process, as the e2e suites start it: the test keys, rate limits raised above
 * what a suite sends, and only errors logged; `settings` add to these or override them.
 */
export function startTestPaygate(settings: Record<string, string> = {}): Promise<InProcessPaygate> {
  return startInProcess({
    ...TEST_RATE_LIMITS,
    MASTER_KEY: TEST_MASTER_KEY,
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    LOG_LEVEL: 'error',
    ...settings,
  });
}

/** startTestPaygate with short timers and test callback settings, for suites that wait for outcomes and callbacks. */
export function startCallbackTestPaygate(settings: Record<string, string> = {}): Promise<InProcessPaygate> {
  return startTestPaygate({ ...TEST_TIMERS, ...TEST_CALLBACK_SETTINGS, ...settings });
}
