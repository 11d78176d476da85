#!/usr/bin/env node
// Prints the spec files whose run changes when no server (PostgreSQL, Kafka, KurrentDB) is
// configured: those that gate a suite on one or choose their engine by one (libs/testing
// services.ts: describeWithService, serviceUrl), or import, through relative imports, a file that
// does. .ci/run runs them with no service variable set, as README's `npm test` is run on a fresh
// machine, so each must skip what it cannot run rather than fail. A spec whose only gate is
// describeOnSqlEngines (sql-engines.ts) is left out: its PGlite half runs the same with or without
// a server and has run already, and its PostgreSQL half skips through describeWithService, which
// the printed specs prove.
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '../..');
const ROOTS = ['apps', 'libs', 'packages', 'tools', 'e2e'];
const GATES = /describeWithService\(\s*'(postgres|kafka|kurrentdb)'|serviceUrl\('(postgres|kafka|kurrentdb)'\)/;
const RELATIVE_IMPORT = /from '(\.{1,2}\/[^']+)'/g;

function sources(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'dist' ? [] : sources(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

const files = ROOTS.flatMap((dir) => sources(path.join(root, dir)));
const text = new Map(files.map((file) => [file, fs.readFileSync(file, 'utf8')]));
const imports = new Map(
  files.map((file) => [
    file,
    [...text.get(file).matchAll(RELATIVE_IMPORT)].map((match) => path.resolve(path.dirname(file), `${match[1]}.ts`)),
  ]),
);

const dependsOnAServer = new Set(files.filter((file) => GATES.test(text.get(file))));
for (let grew = true; grew;) {
  grew = false;
  for (const file of files) {
    if (!dependsOnAServer.has(file) && imports.get(file).some((imported) => dependsOnAServer.has(imported))) {
      dependsOnAServer.add(file);
      grew = true;
    }
  }
}
const specs = [...dependsOnAServer]
  .filter((file) => file.endsWith('.spec.ts'))
  .map((file) => path.relative(root, file));
if (specs.length === 0) {
  console.error('no spec depends on a server: the gates this script looks for have changed');
  process.exit(1);
}
console.log(specs.sort().join('\n'));
