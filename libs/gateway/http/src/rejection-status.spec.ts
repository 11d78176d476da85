/**
 * What a merchant receives when a service refuses a command: a status that says whether to fix
 * the request, look again, or retry, in the envelope with the service's message and details.
 */
import { CommandRejectedError, type RejectionCode } from '@paygate/contracts';
import { rejectionAnswer } from './rejection-status';

const answerTo = (code: RejectionCode, details?: Record<string, unknown>) =>
  rejectionAnswer(new CommandRejectedError(code, `refused: ${code}`, details));

describe('a refused command, as the merchant API answers it', () => {
  it.each([
    ['invalid_request', 400],
    ['not_found', 404],
    ['duplicate_reference', 409],
    ['not_awaiting_confirmation', 409],
    ['already_exists', 409],
    ['insufficient_funds', 409],
    ['unknown_command', 501],
    ['internal', 500],
  ] as const)('%s answers %i in the envelope, without asking for a retry', (code, status) => {
    expect(answerTo(code)).toEqual({
      status,
      headers: {},
      body: { code: status, status: 'error', message: `refused: ${code}`, data: {} },
    });
  });

  it.each(['provider_unavailable', 'service_unavailable'] as const)(
    '%s answers 503 with retry-after, since the same command may pass later',
    (code) => {
      expect(answerTo(code)).toMatchObject({
        status: 503,
        headers: { 'retry-after': '2' },
        body: { code: 503, status: 'error' },
      });
    },
  );

  it('passes the details on as data, so an invalid request names its fields', () => {
    const errors = [{ field: 'amount', message: 'amount is below the minimum of UGX 500' }];
    expect(answerTo('invalid_request', { errors }).body.data).toEqual({ errors });
  });

  it('answers a code this gateway does not know (a newer service) as 500, not as success', () => {
    expect(answerTo('rate_limited' as RejectionCode)).toMatchObject({
      status: 500,
      body: { code: 500, status: 'error' },
    });
  });
});
