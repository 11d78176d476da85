import {
  FormatRegistry,
  Kind,
  Type,
  TypeRegistry,
  type Static,
  type TProperties,
  type TSchema,
} from '@sinclair/typebox';
import { PRN_PATTERN } from './payments/prn';

/**
 * The vocabulary Paygate declares its events in (docs/adr/0002-event-schemas.md). Each event's
 * data is one TypeBox declaration: the declaration is its JSON Schema (draft 2020-12, what
 * `paygate events schema` prints) and `Static<typeof Declaration>` is its TypeScript type.
 * Integration events are declared here in libs/contracts, each context's domain events in its
 * domain lib; one vocabulary, so a field means the same thing in every schema.
 */
const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

// TypeBox's checkers know a format or a custom kind only once it is registered.
FormatRegistry.Set('date-time', (value) => DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)));
TypeRegistry.Set<{ enum: unknown[] }>('StringEnum', (schema, value) => schema.enum.includes(value));
TypeRegistry.Set('NullableString', (_schema, value) => value === null || typeof value === 'string');

/** One of `values`, published as `{ "enum": [...] }` rather than TypeBox's anyOf of consts. */
export function enumOf<const Values extends readonly string[]>(values: Values) {
  return Type.Unsafe<Values[number]>({ [Kind]: 'StringEnum', enum: [...values] });
}

export const SCHEMA = {
  text: Type.String({ minLength: 1 }),
  /** A string, or null while not known yet; published as `{ "type": ["string", "null"] }`. */
  textOrNull: Type.Unsafe<string | null>({ [Kind]: 'NullableString', type: ['string', 'null'] }),
  instant: Type.String({ format: 'date-time' }),
  minorUnits: Type.Integer({ minimum: 0 }),
  positiveMinorUnits: Type.Integer({ minimum: 1 }),
  currency: Type.String({ pattern: '^[A-Z]{3}$' }),
  id: Type.Integer({ minimum: 1 }),
  boolean: Type.Boolean(),
  prn: Type.String({ pattern: PRN_PATTERN }),
};

/** An event's `data`: a closed object (nothing beyond its properties), the root of a published schema. */
export const eventData = <Properties extends TProperties>(properties: Properties) =>
  Type.Object(properties, { $schema: DRAFT_2020_12, additionalProperties: false });

/** A closed object inside an event's data. */
export const closedObject = <Properties extends TProperties>(properties: Properties) =>
  Type.Object(properties, { additionalProperties: false });

/** The `{ type, data }` union of a context's events, from its map of event type to data declaration. */
export type EventsOf<Declarations extends Record<string, TSchema>> = {
  [EventType in keyof Declarations & string]: { type: EventType; data: Static<Declarations[EventType]> };
}[keyof Declarations & string];
