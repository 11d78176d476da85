/** The dashboard's pages checked by axe-core, injected into a page whose context bypasses the CSP. */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';

const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's WCAG 2.0 and 2.1 A and AA rules on the page as shown: each failed rule and where. */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: AXE });
  const { passed, violations } = await page.evaluate<{ passed: number; violations: string[] }>(`axe
    .run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
    .then((result) => ({
      passed: result.passes.length,
      violations: result.violations.map((rule) =>
        rule.id + ': ' + rule.nodes.map((node) => node.target.join(' ')).join(', ')),
    }))`);
  // A page axe found nothing to check on (not loaded, not HTML) would pass for the wrong reason.
  expect(passed).toBeGreaterThan(5);
  return violations;
}
