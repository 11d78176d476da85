import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { README_TABLE_END, README_TABLE_START, renderConfigTable } from './readme-table';
import { settingsOf } from './schema';

const README = resolve(__dirname, '../../../README.md');

/** README's configuration table is generated from the schema, so the two cannot drift apart. */
describe("README's configuration table", () => {
  const readme = readFileSync(README, 'utf8');
  const start = readme.indexOf(README_TABLE_START);
  const end = readme.indexOf(README_TABLE_END);

  it('is marked in README', () => {
    expect(start).toBeGreaterThanOrEqual(0);
    expect(end).toBeGreaterThan(start);
  });

  it('is the schema rendered (UPDATE_README=1 npm test -- libs/config rewrites it)', () => {
    const expected = `${README_TABLE_START}\n${renderConfigTable()}\n${README_TABLE_END}`;
    const actual = readme.slice(start, end + README_TABLE_END.length);
    if (actual !== expected && process.env.UPDATE_README === '1') {
      writeFileSync(README, readme.slice(0, start) + expected + readme.slice(end + README_TABLE_END.length));
      return;
    }
    expect(actual).toBe(expected);
  });

  it('has one row per declared variable', () => {
    const rows = renderConfigTable().split('\n').slice(2);
    expect(rows.map((row) => /^\| `([A-Z_]+)` \|/.exec(row)?.[1])).toEqual(
      settingsOf().map((setting) => setting.variable),
    );
  });
});
