import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The README's TypeScript example is what a merchant pastes first: it must compile under
 * `strict` against the package's types as generated, so a request field the document gives a
 * default (charge_customer, require_confirmation) may be left out.
 */
describe("the package README's TypeScript example", () => {
  const root = join(__dirname, '../../..');

  it('type-checks under strict against the generated types', () => {
    const readme = readFileSync(join(__dirname, '../README.md'), 'utf8');
    const blocks = [...readme.matchAll(/```ts\n([^]*?)```/g)].map((match) => match[1]);
    expect(blocks.length).toBeGreaterThan(0);
    const dir = mkdtempSync(join(tmpdir(), 'paygate-readme-'));
    try {
      // Each block is a module of its own (the README's use top-level await).
      blocks.forEach((code, index) => writeFileSync(join(dir, `example-${index}.ts`), `${code}\nexport {};\n`));
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            noEmit: true,
            target: 'ES2022',
            module: 'ESNext',
            moduleResolution: 'Bundler',
            lib: ['ES2022', 'DOM'],
            types: ['node'],
            typeRoots: [join(root, 'node_modules/@types')],
            skipLibCheck: true,
            // The package as its own source: what `npm pack` would ship is built from it.
            paths: {
              'paygate-node': [join(__dirname, 'index.ts')],
              'openapi-fetch': [join(root, 'node_modules/openapi-fetch')],
            },
          },
          include: ['*.ts'],
        }),
      );
      const tsc = join(root, 'node_modules/typescript/bin/tsc');
      let output = '';
      try {
        execFileSync(process.execPath, [tsc, '-p', dir], { encoding: 'utf8', stdio: 'pipe' });
      } catch (error) {
        output = String((error as { stdout?: string }).stdout);
      }
      expect(output).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
