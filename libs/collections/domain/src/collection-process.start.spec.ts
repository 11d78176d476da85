/**
 * The collection process (setup in collection-process-test-setup.ts). This file: the deadline a
 * new collection gets, and the implicit start of a collection that needs no confirmation, when
 * it is opened or its PRN is accepted.
 */
import type { TransactionMethod } from '@paygate/contracts';
import type { CollectionCommand, CollectionState } from './collection';
import { initiateCollection } from './collection-process';
import { outline, POLICY, runProcess } from './collection-process-test-setup';
import { apply, at, CONFIRMATION_DEADLINE, initiatedData, METHODS, stateIn, T0 } from './collection-test-setup';

const PRN = '2250000001301';
const OPENED = { type: 'Opened' } as const;
const withoutDeadline = (...args: Parameters<typeof initiatedData>) => ({ ...initiatedData(...args), confirmationExpiresAt: undefined });
const opened = (method: TransactionMethod, requireConfirmation: boolean, prn?: string): CollectionState =>
  apply(null, initiateCollection(withoutDeadline(method, requireConfirmation, { prn }), POLICY));

describe('a new collection', () => {
  it.each<[string, boolean, string | undefined, string | undefined]>([
    ['waiting for its confirmation', true, undefined, CONFIRMATION_DEADLINE],
    ['paying a PRN without confirmation (its verdict must come in time)', false, PRN, CONFIRMATION_DEADLINE],
    ['paying a PRN and waiting for its confirmation', true, PRN, CONFIRMATION_DEADLINE],
    ['needing no confirmation and no PRN verdict', false, undefined, undefined],
  ])('%s gets its confirmation deadline, or none', (_name, requireConfirmation, prn, deadline) => {
    const command = initiateCollection(withoutDeadline('MOBILE_MONEY', requireConfirmation, { prn }), POLICY);
    expect(command).toEqual({ type: 'Initiate', data: initiatedData('MOBILE_MONEY', requireConfirmation, { prn, confirmationExpiresAt: deadline }) });
  });
});

describe.each(METHODS)('opening a %s collection', (method) => {
  const timeoutMs = method === 'CARD' ? POLICY.checkoutTimeoutMs : POLICY.promptTimeoutMs;
  const answer =
    method === 'CARD' ? { providerReference: 'sess_1', paymentUrl: 'https://checkout.sandbox.test/pay/sess_1' } : { providerReference: 'momo-ref-1' };

  it('that needs no confirmation confirms it implicitly, with its own time-out, asks the provider and records the answer', async () => {
    const run = await runProcess(OPENED, opened(method, false), at(1), { request: answer });
    expect(outline(run)).toEqual(['Execute Confirm', 'RequestProvider', 'Execute RecordProviderRequest', 'Done']);
    expect(run.actions[0]).toEqual({ type: 'Execute', command: { type: 'Confirm', at: at(1), implicit: true, providerExpiresAt: at(1 + timeoutMs / 1000) } });
    expect(run.actions[2]).toEqual({ type: 'Execute', command: { type: 'RecordProviderRequest', at: at(1), ...answer } });
    expect(run.collection).toMatchObject({ phase: 'WITH_PROVIDER', providerReference: answer.providerReference });
  });

  it('asks the provider for the amount in major units, with what the customer and the payee read and the provider deadline', async () => {
    const collection = opened(method, false);
    const [, request] = (await runProcess(OPENED, collection, at(1), { request: answer })).actions;
    const data = collection?.initiated;
    expect(request).toEqual({
      type: 'RequestProvider',
      request: {
        providerCode: data?.providerCode,
        reference: data?.internalReference,
        amount: '81000',
        currency: 'UGX',
        msisdn: data?.msisdn,
        description: data?.description,
        payerMessage: data?.description ?? `Payment ${data?.merchantReference}`,
        payeeNote: data?.merchantReference,
        expiresAt: at(1 + timeoutMs / 1000),
      },
    });
  });

  it('that waits for its confirmation does nothing', async () => {
    expect(outline(await runProcess(OPENED, opened(method, true), at(1)))).toEqual(['Done']);
  });

  it('that pays a PRN waits for the verdict: nothing reaches the provider', async () => {
    expect(outline(await runProcess(OPENED, opened(method, false, PRN), at(1)))).toEqual(['Done']);
  });

  it('whose PRN is accepted, needing no confirmation, starts then', async () => {
    const accepted = apply(opened(method, false, PRN), { type: 'AcceptPrn', at: at(2) });
    expect(outline(await runProcess(OPENED, accepted, at(2), { request: answer }))).toEqual([
      'Execute Confirm',
      'RequestProvider',
      'Execute RecordProviderRequest',
      'Done',
    ]);
  });

  it('whose PRN is accepted too late is cancelled by the implicit confirmation, and the run ends quietly', async () => {
    const accepted = apply(opened(method, false, PRN), { type: 'AcceptPrn', at: at(2) });
    const run = await runProcess(OPENED, accepted, CONFIRMATION_DEADLINE);
    expect(outline(run)).toEqual(['Execute Confirm', 'Done']);
    expect(run.collection).toMatchObject({ status: 'CANCELLED', cancellationReason: 'CONFIRMATION_TIMEOUT' });
  });

  it('when the provider cannot be reached: the run ends and the request is owed to the status timer, the merchant still acknowledged', async () => {
    const run = await runProcess(OPENED, opened(method, false), at(1), { request: 'unreachable' });
    expect(outline(run)).toEqual(['Execute Confirm', 'RequestProvider', 'Done']);
    expect(run.collection).toMatchObject({ status: 'PENDING', phase: 'AWAITING_PROVIDER' });
  });

  it('found again by a retried request does not start it twice', async () => {
    const started: CollectionCommand[] = [
      { type: 'Confirm', at: at(1), implicit: true, providerExpiresAt: at(301) },
      { type: 'RecordProviderRequest', at: at(1), ...answer },
    ];
    const requestOwed = apply(opened(method, false), started[0]);
    const withProvider = apply(requestOwed, started[1]);
    expect(outline(await runProcess(OPENED, requestOwed, at(5)))).toEqual(['Done']);
    expect(outline(await runProcess(OPENED, withProvider, at(5)))).toEqual(['Done']);
    expect(outline(await runProcess(OPENED, stateIn(method, 'COMPLETED'), at(5)))).toEqual(['Done']);
  });
});

it('the process ends any run on a collection that does not exist', async () => {
  expect((await runProcess(OPENED, null, T0)).actions).toEqual([{ type: 'Done' }]);
});
