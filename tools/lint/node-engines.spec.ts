import { readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';

/**
 * package.json promises Node 24, the LTS (`engines.node`): every package the lock file installs
 * must run on it, or `npm install` warns EBADENGINE on a supported machine.
 */

const ROOT = path.resolve(__dirname, '../..');
const read = (file: string) => JSON.parse(readFileSync(path.join(ROOT, file), 'utf8'));

describe('Node engines of the installed packages', () => {
  const promised: string = read('package.json').engines.node;
  const lock = read('package-lock.json') as {
    packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
  };

  it('package.json promises Node 24', () => {
    expect(semver.minVersion(promised)?.major).toBe(24);
  });

  it('every locked package accepts Node 24', () => {
    const refusing = Object.entries(lock.packages)
      .filter(([location]) => location !== '')
      .flatMap(([location, { version, engines }]) => {
        // Old packages wrote engines as an array, which npm ignores.
        const node = engines && !Array.isArray(engines) ? engines.node : undefined;
        return node && !semver.intersects(node, '24.x') ? [`${location}@${version} wants node ${node}`] : [];
      });
    expect(refusing).toEqual([]);
  });
});
