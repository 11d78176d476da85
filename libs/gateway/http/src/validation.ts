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
 * The platform's input guard has already refused bodies too deep and text no validator can
 * take (NUL, unpaired surrogates).
 */
export async function validateBody<T extends object>(
  dto: new () => T,
  body: unknown,
  requiredMessages: Record<string, string> = {},
): Promise<{ value: T; errors: FieldError[] }> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ValidationFailed([{ field: 'body', message: 'the request body must be a JSON object' }]);
  }
  // class-transformer silently drops keys named like Object.prototype members (`constructor`,
  // `toString`), so unknown fields are found on the raw body's own keys.
  const known = new Set(
    getMetadataStorage()
      .getTargetValidationMetadatas(dto, '', true, false)
      .map((metadata) => metadata.propertyName),
  );
  const unknown = Object.keys(body).filter((key) => !known.has(key));
  const value = plainToInstance(dto, body, { enableImplicitConversion: false });
  const problems = await validate(value, {
    whitelist: true,
    forbidNonWhitelisted: true,
    validationError: { target: false, value: true },
  });
  const errors: FieldError[] = unknown.map((field) => ({ field, message: `${field} is not a field of this request` }));
  const reported = new Set(errors.map((error) => error.field));
  const shapeErrors = problems
    .filter((problem) => !reported.has(problem.property))
    .map((problem) => {
      const field = problem.property;
      if (problem.constraints?.whitelistValidation)
        return { field, message: `${field} is not a field of this request` };
      if (problem.value === undefined) return { field, message: requiredMessages[field] ?? `${field} is required` };
      // class-validator lists constraints bottom-up; the first decorator states the basic rule.
      const messages = Object.values(problem.constraints ?? {});
      return { field, message: messages[messages.length - 1] ?? `${field} is invalid` };
    });
  return { value, errors: [...errors, ...shapeErrors] };
}
