/**
 * How many generated requests the bad-input suites send. By default a size that keeps CI short
 * and still reaches every route and field; BAD_INPUT_FULL=1 runs the full size (README, "Test
 * it"). FC_NUM_RUNS and CORPUS_SIZE set an exact figure either way.
 */
const full = process.env.BAD_INPUT_FULL === '1';
const exact = (variable: string): number | undefined =>
  process.env[variable] === undefined ? undefined : Number(process.env[variable]);

/** Requests in the seeded corpus (bad-input.corpus.spec.ts). */
export const CORPUS_SIZE = exact('CORPUS_SIZE') ?? (full ? 10_000 : 2_000);

/** Runs of each property over initialize, confirm and the reads (bad-input-test-setup.ts). */
export const PROPERTY_RUNS = exact('FC_NUM_RUNS') ?? (full ? 300 : 60);

/** Runs per string field of every route (bad-input.text-fields.property.spec.ts). */
export const TEXT_FIELD_RUNS = exact('FC_NUM_RUNS') ?? (full ? 8 : 3);
