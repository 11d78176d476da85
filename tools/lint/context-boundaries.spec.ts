import * as contracts from '@paygate/contracts';
import { ESLint } from 'eslint';
import path from 'node:path';

/**
 * The module-boundary rule as a merchant-facing guarantee: a bounded context reaches another only
 * through libs/contracts. Each case lints source text as if it sat at `file`, so the rule sees the
 * real project graph and tags without a stray file in the tree.
 */
const ROOT = path.resolve(__dirname, '../..');
const RULE = '@nx/enforce-module-boundaries';

async function boundaryErrors(file: string, source: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: ROOT });
  const [result] = await eslint.lintText(source, { filePath: path.join(ROOT, file) });
  return result.messages.filter((m) => m.ruleId === RULE).map((m) => m.message);
}

describe('context boundaries (lint)', () => {
  jest.setTimeout(120_000);

  it.each([
    ['payments service', 'libs/payments/service/src/fixture.ts', '@paygate/collections-domain'],
    ['payments domain', 'libs/payments/domain/src/fixture.ts', '@paygate/collections-domain'],
    ['collections service', 'libs/collections/service/src/fixture.ts', '@paygate/payments-domain'],
    ['webhooks service', 'libs/webhooks/service/src/fixture.ts', '@paygate/collections-domain'],
    ['webhooks domain', 'libs/webhooks/domain/src/fixture.ts', '@paygate/payments-domain'],
    ['gateway', 'libs/gateway/http/src/fixture.ts', '@paygate/collections-domain'],
    ['sandbox', 'libs/sandbox/providers/src/fixture.ts', '@paygate/payments-domain'],
  ])('refuses the %s importing another context’s domain (%s ← %s)', async (_name, file, imported) => {
    const errors = await boundaryErrors(file, `import * as other from '${imported}';\nexport const used = other;\n`);
    expect(errors).toEqual([expect.stringMatching(/scope:/)]);
  });

  it('lets a context import its own domain and the shared contracts', async () => {
    const source = `import * as own from '@paygate/payments-domain';\nimport * as contracts from '@paygate/contracts';\nexport const used = [own, contracts];\n`;
    expect(await boundaryErrors('libs/payments/service/src/fixture.ts', source)).toEqual([]);
  });

  it('finds no context’s domain events in the shared contracts: each context owns its own', () => {
    for (const name of [
      'COLLECTION_EVENT_TYPES',
      'COLLECTION_EVENT_SCHEMAS',
      'SERVICE_PAYMENT_EVENT_TYPES',
      'WALLET_EVENT_TYPES',
      'LEDGER_ACCOUNTS',
      'WALLET_EVENT_SCHEMAS',
    ]) {
      expect(contracts).not.toHaveProperty(name);
    }
    expect(contracts).toHaveProperty('COLLECTION_INTEGRATION_EVENTS');
    expect(contracts).toHaveProperty('PAYMENTS_INTEGRATION_EVENTS');
  });
});
