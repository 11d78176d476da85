import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The client's types are generated from docs/openapi.json (`npm run openapi`): a document that
 * changes without them fails here. `--default-non-nullable=false`: openapi-typescript otherwise
 * makes a field with a `default` required, and a request may leave such a field out.
 */
describe('the generated API types', () => {
  it('are what openapi-typescript makes of docs/openapi.json', () => {
    const root = join(__dirname, '../../..');
    const dir = mkdtempSync(join(tmpdir(), 'paygate-api-types-'));
    try {
      const generated = join(dir, 'api-types.ts');
      execFileSync(
        process.execPath,
        [
          join(root, 'node_modules/openapi-typescript/bin/cli.js'),
          join(root, 'docs/openapi.json'),
          '--default-non-nullable=false',
          '-o',
          generated,
        ],
        {
          stdio: 'pipe',
        },
      );
      execFileSync(
        process.execPath,
        [
          join(root, 'node_modules/prettier/bin/prettier.cjs'),
          '--write',
          generated,
          '--config',
          join(root, '.prettierrc.json'),
        ],
        {
          stdio: 'pipe',
        },
      );
      expect(readFileSync(join(__dirname, 'api-types.ts'), 'utf8')).toBe(readFileSync(generated, 'utf8'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
