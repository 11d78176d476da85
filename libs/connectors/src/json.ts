export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A provider error code worth carrying in an error message: a plain identifier, never free text. */
export function plainCode(value: unknown): string | undefined {
  return typeof value === 'string' && /^[A-Za-z_]{1,64}$/.test(value) ? value : undefined;
}
