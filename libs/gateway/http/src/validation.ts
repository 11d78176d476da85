import { BadRequestException } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validate } from 'class-validator';

export interface FieldError {
  field: string;
  message: string;
}

/** A 400 in the envelope with `data.errors` naming each bad field. */
export class ValidationFailed extends BadRequestException {
  constructor(readonly errors: FieldError[]) {
    super({ message: errors.map((error) => error.message).join('; '), data: { errors } });
  }
}

/**
 * Validates a JSON body against a DTO once, without type coercion: `"100"` is not a number and
 * `"true"` is not a boolean. Unknown fields are errors, so a misspelt optional field is noticed.
 */
export async function validateBody<T extends object>(dto: new () => T, body: unknown, requiredMessages: Record<string, string> = {}): Promise<{ value: T; errors: FieldError[] }> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ValidationFailed([{ field: 'body', message: 'the request body must be a JSON object' }]);
  }
  // class-transformer silently drops keys named like Object.prototype members (`constructor`,
  // `toString`), so unknown fields are found on the raw body's own keys.
  const known = new Set(getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false).map((metadata) => metadata.propertyName));
  const unknown = Object.keys(body).filter((key) => !known.has(key));
  const unstorable = Object.entries(body).filter(([key, field]) => known.has(key) && containsUnstorableText(field));
  const value = plainToInstance(dto, body, { enableImplicitConversion: false });
  const problems = await validate(value, { whitelist: true, forbidNonWhitelisted: true, validationError: { target: false, value: true } });
  const errors: FieldError[] = [
    ...unknown.map((field) => ({ field, message: `${field} is not a field of this request` })),
    ...unstorable.map(([field]) => ({ field, message: `${field} must not contain NUL characters or unpaired UTF-16 surrogates` })),
  ];
  const reported = new Set(errors.map((error) => error.field));
  const shapeErrors = problems.filter((problem) => !reported.has(problem.property)).map((problem) => {
    const field = problem.property;
    if (problem.constraints?.whitelistValidation) return { field, message: `${field} is not a field of this request` };
    if (problem.value === undefined) return { field, message: requiredMessages[field] ?? `${field} is required` };
    // class-validator lists constraints bottom-up; the first decorator states the basic rule.
    const messages = Object.values(problem.constraints ?? {});
    return { field, message: messages[messages.length - 1] ?? `${field} is invalid` };
  });
  return { value, errors: [...errors, ...shapeErrors] };
}

const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Text PostgreSQL cannot hold (NUL, lone surrogates) is refused up front rather than failing a write. */
export function containsUnstorableText(value: unknown): boolean {
  if (typeof value === 'string') return UNSTORABLE.test(value);
  if (Array.isArray(value)) return value.some(containsUnstorableText);
  if (typeof value === 'object' && value !== null) return Object.entries(value).some(([key, inner]) => containsUnstorableText(key) || containsUnstorableText(inner));
  return false;
}
