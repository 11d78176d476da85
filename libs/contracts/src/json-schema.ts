/**
 * Building blocks of the JSON Schemas (draft 2020-12) Paygate publishes for its events: the
 * integration events here, each context's domain events in its domain lib. One vocabulary, so a
 * field means the same thing in every schema.
 */
export type JsonSchema = Record<string, unknown>;

export const SCHEMA = {
  text: { type: 'string', minLength: 1 },
  instant: { type: 'string', format: 'date-time' },
  minorUnits: { type: 'integer', minimum: 0 },
  positiveMinorUnits: { type: 'integer', minimum: 1 },
  currency: { type: 'string', pattern: '^[A-Z]{3}$' },
  id: { type: 'integer', minimum: 1 },
  boolean: { type: 'boolean' },
} as const;

/** A closed object: every `required` property must be there, `optional` ones may, nothing else may. */
export function objectSchema(required: Record<string, JsonSchema>, optional: Record<string, JsonSchema> = {}): JsonSchema {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    additionalProperties: false,
    required: Object.keys(required),
    properties: { ...required, ...optional },
  };
}

/** A schema used inside another one carries no `$schema` of its own. */
export function nestedSchema(schema: JsonSchema): JsonSchema {
  const copy = { ...schema };
  delete copy.$schema;
  return copy;
}
