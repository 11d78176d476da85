import { settingsOf } from './schema';

/** Marks README's generated table; readme-table.spec.ts fails when the two differ. */
export const README_TABLE_START = '<!-- config-table: generated from libs/config/src/schema.ts -->';
export const README_TABLE_END = '<!-- /config-table -->';

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** README's configuration table: every variable of the schema, in schema order. */
export function renderConfigTable(): string {
  const rows = settingsOf().map((setting) => {
    const fallback =
      setting.standaloneDefault === undefined
        ? setting.defaultText
        : `${setting.defaultText} (standalone: \`${setting.standaloneDefault}\`)`;
    return `| \`${setting.variable}\` | ${cell(setting.type)} | ${cell(fallback)} | ${cell(setting.description)} |`;
  });
  return ['| variable | type | default | meaning |', '|---|---|---|---|', ...rows].join('\n');
}
