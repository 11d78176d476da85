/**
 * The collection process (setup in collection-process-test-setup.ts). This file: the deadline a
 * new collection gets, and the implicit start of a collection that needs no confirmation, when
 * it is opened or its PRN is accepted.
 */
import type { TransactionMethod } from '@paygate/contracts';
import type { CollectionCommand } from './collection';
import { initiateCollection } from './collection-process';
import {
  CONFIRMS_AND_ASKS_THE_PROVIDER,
  given,
  outline,
  POLICY,
  providerAnswer,
  providerTimeoutMs,
} from './collection-process-test-setup';
import { at, CONFIRMATION_DEADLINE, eventsOf, eventsTo, initiatedData, METHODS, T0 } from './collection-test-setup';

const PRN = '2250000001301';
const OPENED = { type: 'Opened' } as const;
const withoutDeadline = (...args: Parameters<typeof initiatedData>) => ({
  ...initiatedData(...args),
  confirmationExpiresAt: undefined,
});
const initiate = (method: TransactionMethod, requireConfirmation: boolean, prn?: string): CollectionCommand =>
  initiateCollection(withoutDeadline(method, requireConfirmation, { prn }), POLICY);
const ACCEPT_PRN: CollectionCommand = { type: 'AcceptPrn', at: at(2) };

describe('a new collection', () => {
  it.each<[string, boolean, string | undefined, string | undefined]>([
    ['waiting for its confirmation', true, undefined, CONFIRMATION_DEADLINE],
    ['paying a PRN without confirmation (its verdict must come in time)', false, PRN, CONFIRMATION_DEADLINE],
    ['paying a PRN and waiting for its confirmation', true, PRN, CONFIRMATION_DEADLINE],
    ['needing no confirmation and no PRN verdict', false, undefined, undefined],
  ])('%s gets its confirmation deadline, or none', (_name, requireConfirmation, prn, deadline) => {
    const command = initiateCollection(withoutDeadline('MOBILE_MONEY', requireConfirmation, { prn }), POLICY);
    expect(command).toEqual({
      type: 'Initiate',
      data: initiatedData('MOBILE_MONEY', requireConfirmation, { prn, confirmationExpiresAt: deadline }),
    });
  });
});

describe.each(METHODS)('opening a %s collection', (method) => {
  const timeoutMs = providerTimeoutMs(method);
  const answer = providerAnswer(method);

  it('that needs no confirmation confirms it implicitly, with its own time-out, asks the provider and records the answer', async () => {
    const run = await given(eventsOf(initiate(method, false))).when(OPENED, at(1), { request: answer });
    expect(outline(run.outputs)).toEqual(CONFIRMS_AND_ASKS_THE_PROVIDER);
    expect(run.outputs[0]).toEqual({
      type: 'Execute',
      command: { type: 'Confirm', at: at(1), implicit: true, providerExpiresAt: at(1 + timeoutMs / 1000) },
    });
    expect(run.outputs[2]).toEqual({
      type: 'Execute',
      command: { type: 'RecordProviderRequest', at: at(1), ...answer },
    });
    expect(run.collection).toMatchObject({ phase: 'WITH_PROVIDER', providerReference: answer.providerReference });
  });

  it('asks the provider for the amount in major units, with what the customer and the payee read and the provider deadline', async () => {
    const [, request] = (await given(eventsOf(initiate(method, false))).when(OPENED, at(1), { request: answer }))
      .outputs;
    const data = initiatedData(method);
    expect(request).toEqual({
      type: 'Call',
      call: {
        type: 'RequestProvider',
        request: {
          providerCode: data.providerCode,
          reference: data.internalReference,
          amount: '81000',
          currency: 'UGX',
          msisdn: data.msisdn,
          description: data.description,
          payerMessage: data.description ?? `Payment ${data.merchantReference}`,
          payeeNote: data.merchantReference,
          expiresAt: at(1 + timeoutMs / 1000),
        },
      },
    });
  });

  it('that waits for its confirmation does nothing', async () => {
    const run = await given(eventsOf(initiate(method, true))).when(OPENED, at(1));
    expect(outline(run.outputs)).toEqual(['Done']);
    expect(run.events).toEqual([]);
  });

  it('that pays a PRN waits for the verdict: nothing reaches the provider', async () => {
    const run = await given(eventsOf(initiate(method, false, PRN))).when(OPENED, at(1));
    expect(outline(run.outputs)).toEqual(['Done']);
    expect(run.events).toEqual([]);
  });

  it('whose PRN is accepted, needing no confirmation, starts then', async () => {
    const run = await given(eventsOf(initiate(method, false, PRN), ACCEPT_PRN)).when(OPENED, at(2), {
      request: answer,
    });
    expect(outline(run.outputs)).toEqual(CONFIRMS_AND_ASKS_THE_PROVIDER);
    expect(run.collection).toMatchObject({ phase: 'WITH_PROVIDER' });
  });

  it('whose PRN is accepted too late is cancelled by the implicit confirmation, and the run ends quietly', async () => {
    const run = await given(eventsOf(initiate(method, false, PRN), ACCEPT_PRN)).when(OPENED, CONFIRMATION_DEADLINE);
    expect(outline(run.outputs)).toEqual(['Execute Confirm', 'Done']);
    expect(run.collection).toMatchObject({ status: 'CANCELLED', cancellationReason: 'CONFIRMATION_TIMEOUT' });
  });

  it('when the provider cannot be reached: the run ends and the request is owed to the status timer, the merchant still acknowledged', async () => {
    const run = await given(eventsOf(initiate(method, false))).when(OPENED, at(1), { request: 'unreachable' });
    expect(outline(run.outputs)).toEqual(['Execute Confirm', 'Call RequestProvider', 'Done']);
    expect(run.collection).toMatchObject({ status: 'PENDING', phase: 'AWAITING_PROVIDER' });
  });

  it('found again by a retried request does not start it twice', async () => {
    const confirmed: CollectionCommand = { type: 'Confirm', at: at(1), implicit: true, providerExpiresAt: at(301) };
    const requestOwed = eventsOf(initiate(method, false), confirmed);
    const withProvider = eventsOf(initiate(method, false), confirmed, {
      type: 'RecordProviderRequest',
      at: at(1),
      ...answer,
    });
    for (const history of [requestOwed, withProvider, eventsTo(method, 'COMPLETED')]) {
      const run = await given(history).when(OPENED, at(5));
      expect({ outline: outline(run.outputs), events: run.events }).toEqual({ outline: ['Done'], events: [] });
    }
  });
});

it('the process ends any run on a collection that does not exist', async () => {
  expect((await given([]).when(OPENED, T0)).outputs).toEqual([{ type: 'Done' }]);
});
