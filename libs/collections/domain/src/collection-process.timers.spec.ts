/**
 * The collection process (setup in collection-process-test-setup.ts). This file: what each due
 * timer does (confirmation and provider deadlines, status polling) and its verdict for the
 * timer worker (Done, or RetryAt the next poll).
 */
import type { TransactionMethod } from '@paygate/contracts';
import type { CollectionTimerKind } from './collection-process';
import { fixedReference, given, outline, POLICY } from './collection-process-test-setup';
import {
  at,
  CONFIRMATION_DEADLINE,
  eventsTo,
  FINAL_STATES,
  initiatedData,
  METHODS,
  PAYMENT_URL,
  PROVIDER_DEADLINE,
  SUCCESS_CARD,
  SUCCESS_MOMO,
  type Situation,
} from './collection-test-setup';

const due = (kind: CollectionTimerKind, dueAt: string) => ({ type: 'TimerDue', kind, dueAt }) as const;
const PENDING = { status: 'PENDING' } as const;
const success = (method: TransactionMethod) => (method === 'CARD' ? SUCCESS_CARD : SUCCESS_MOMO);
const nextPoll = (now: string) => ({
  type: 'RetryAt',
  at: new Date(Date.parse(now) + POLICY.statusPollMs).toISOString(),
});

describe.each(METHODS)('the timers of a %s collection', (method) => {
  describe('confirmation', () => {
    it('due while awaiting confirmation expires the collection at its due time, even when it fires late, and is done', async () => {
      const run = await given(eventsTo(method, 'AWAITING_CONFIRMATION')).when(
        due('confirmation', CONFIRMATION_DEADLINE),
        at(1900),
      );
      expect(run.outputs).toEqual([
        { type: 'Execute', command: { type: 'Expire', at: at(1900), timer: 'confirmation' } },
        { type: 'Done' },
      ]);
      expect(run.collection).toMatchObject({ status: 'CANCELLED', cancellationReason: 'CONFIRMATION_TIMEOUT' });
    });

    it('fired before its due time expires nothing early', async () => {
      const [expire] = (
        await given(eventsTo(method, 'AWAITING_CONFIRMATION')).when(
          due('confirmation', CONFIRMATION_DEADLINE),
          at(1700),
        )
      ).outputs;
      expect(expire).toEqual({
        type: 'Execute',
        command: { type: 'Expire', at: CONFIRMATION_DEADLINE, timer: 'confirmation' },
      });
    });

    it.each<Situation>(['AWAITING_PROVIDER', 'WITH_PROVIDER'])(
      'due once confirmed (%s) leaves the collection as it is',
      async (situation) => {
        const run = await given(eventsTo(method, situation)).when(
          due('confirmation', CONFIRMATION_DEADLINE),
          CONFIRMATION_DEADLINE,
        );
        expect(outline(run.outputs)).toEqual(['Execute Expire', 'Done']);
        expect(run.events).toEqual([]);
      },
    );
  });

  describe('provider deadline', () => {
    const withProvider = () => given(eventsTo(method, 'WITH_PROVIDER'));

    it('asks the provider one last time; PENDING: the collection expires', async () => {
      const run = await withProvider().when(due('provider', PROVIDER_DEADLINE), PROVIDER_DEADLINE, {
        status: [PENDING],
      });
      expect(outline(run.outputs)).toEqual(['Call QueryProvider', 'Execute Expire', 'Done']);
      expect(run.outputs[0]).toEqual({
        type: 'Call',
        call: {
          type: 'QueryProvider',
          providerCode: initiatedData(method).providerCode,
          reference: run.collection?.providerReference,
        },
      });
      expect(run.outputs[1]).toEqual({
        type: 'Execute',
        command: { type: 'Expire', at: PROVIDER_DEADLINE, timer: 'provider' },
      });
      expect(run.collection).toMatchObject({ status: 'CANCELLED', cancellationReason: 'PROVIDER_TIMEOUT' });
    });

    it('asks the provider one last time; a result whose callback never came is recorded instead', async () => {
      const run = await withProvider().when(due('provider', PROVIDER_DEADLINE), PROVIDER_DEADLINE, {
        status: [success(method)],
      });
      expect(outline(run.outputs)).toEqual(['Call QueryProvider', 'Execute RecordProviderOutcome', 'Done']);
      expect(run.collection).toMatchObject({ status: 'COMPLETED' });
    });

    it('expires the collection when the provider cannot be reached', async () => {
      const run = await withProvider().when(due('provider', PROVIDER_DEADLINE), PROVIDER_DEADLINE, {
        status: ['unreachable'],
      });
      expect(outline(run.outputs)).toEqual(['Call QueryProvider', 'Execute Expire', 'Done']);
      expect(run.collection).toMatchObject({ status: 'CANCELLED' });
    });

    it('with the request still owed, asks by the reference ours fixes where the protocol has one, else expires at once', async () => {
      const status = method === 'MOBILE_MONEY' ? [PENDING] : [];
      const run = await given(eventsTo(method, 'AWAITING_PROVIDER')).when(
        due('provider', PROVIDER_DEADLINE),
        PROVIDER_DEADLINE,
        { status },
      );
      if (method === 'MOBILE_MONEY') {
        expect(outline(run.outputs)).toEqual(['Call QueryProvider', 'Execute Expire', 'Done']);
        expect(run.outputs[0]).toMatchObject({
          call: { reference: fixedReference(initiatedData(method).internalReference) },
        });
      } else {
        expect(outline(run.outputs)).toEqual(['Execute Expire', 'Done']);
      }
      expect(run.collection).toMatchObject({ status: 'CANCELLED', cancellationReason: 'PROVIDER_TIMEOUT' });
    });
  });

  describe('status poll', () => {
    it('with the customer at the provider asks for the result; PENDING: polls again later', async () => {
      const run = await given(eventsTo(method, 'WITH_PROVIDER')).when(due('status', at(121)), at(125), {
        status: [PENDING],
      });
      expect(run.outputs).toEqual([
        expect.objectContaining({ call: expect.objectContaining({ type: 'QueryProvider' }) }),
        nextPoll(at(125)),
      ]);
    });

    it('with the customer at the provider records a result and is done', async () => {
      const run = await given(eventsTo(method, 'WITH_PROVIDER')).when(due('status', at(121)), at(125), {
        status: [success(method)],
      });
      expect(outline(run.outputs)).toEqual(['Call QueryProvider', 'Execute RecordProviderOutcome', 'Done']);
      expect(run.collection).toMatchObject({ status: 'COMPLETED' });
    });

    it('with the provider request still owed makes it again, records the answer and polls on', async () => {
      const answer =
        method === 'CARD'
          ? { providerReference: 'sess_9', paymentUrl: PAYMENT_URL }
          : { providerReference: 'momo-ref-9' };
      const run = await given(eventsTo(method, 'AWAITING_PROVIDER')).when(due('status', at(120)), at(120), {
        request: answer,
      });
      expect(outline(run.outputs)).toEqual(['Call RequestProvider', 'Execute RecordProviderRequest', 'RetryAt']);
      expect(run.outputs[2]).toEqual(nextPoll(at(120)));
      expect(run.collection).toMatchObject({ phase: 'WITH_PROVIDER', providerReference: answer.providerReference });
    });

    it.each(['RequestProvider', 'QueryProvider'])(
      'fails when the provider cannot be reached (%s): the worker fires it again',
      async (asked) => {
        const history = eventsTo(method, asked === 'RequestProvider' ? 'AWAITING_PROVIDER' : 'WITH_PROVIDER');
        const run = await given(history).when(due('status', at(120)), at(120), {
          request: 'unreachable',
          status: ['unreachable'],
        });
        expect(outline(run.outputs)).toEqual([`Call ${asked}`, 'Fail']);
      },
    );
  });

  it.each(
    FINAL_STATES.flatMap((status) =>
      (['confirmation', 'provider', 'status'] as const).map((kind) => [kind, status] as const),
    ),
  )('the %s timer of a %s collection is done without a word to anyone', async (kind, status) => {
    const run = await given(eventsTo(method, status)).when(due(kind, at(300)), at(400));
    expect({ outputs: run.outputs, events: run.events }).toEqual({ outputs: [{ type: 'Done' }], events: [] });
  });
});
