/**
 * Shared setup of the service payment process specs (service-payment-process.*.spec.ts), which
 * read given (events) / when (trigger, biller and ledger scripts) / then (outputs, the payment
 * after): the policy, the triggers, and a driver that runs servicePaymentProcess with
 * libs/decider's runProcess, as the service does, against the payment folded from the given
 * events, a scripted biller and a scripted ledger, with the ServicePayment decider
 * (schema-checked, payments-test-setup.ts) executing the payment's commands.
 *
 * Test code: jest does not collect it (not *.spec.ts) and the build leaves it out.
 */
import {
  CommandRejectedError,
  type CollectionStatus,
  type PrnDetails,
  type PublishedCollectionV1,
  type RejectionCode,
} from '@paygate/contracts';
import { fold, type ProcessOutput } from '@paygate/decider';
import { recordRun } from '@paygate/testing';
import type { ServicePaymentEvent, WalletHoldPurpose } from './events';
import { collection, decideChecked, PRN, REF, WALLET } from './payments-test-setup';
import { describeHold } from './references';
import { DEFAULT_PAYMENT_RETRY, type RetryPolicy } from './retry';
import type { ServicePaymentState } from './service-payment';
import { servicePaymentDecider } from './service-payment-decider';
import {
  servicePaymentProcess,
  type BillerPaymentAnswer,
  type PaymentCall,
  type PaymentCommand,
  type PaymentInput,
  type PaymentPolicy,
  type PaymentRun,
  type PaymentTrigger,
} from './service-payment-process';
import type { WalletCommand } from './wallet-ledger';

export { outline } from '@paygate/testing';

export const POLICY: PaymentPolicy = {
  retry: DEFAULT_PAYMENT_RETRY,
  statusPollMs: 2_000,
  billerName: 'Configured biller',
};

// ---- the triggers ----

/** collections asks for the verdict on the collect-for-payment collection of payments-test-setup.ts. */
export const verdictRequested = (overrides: Partial<PublishedCollectionV1> = {}): PaymentTrigger => ({
  type: 'VerdictRequested',
  collection: collection({ prn: PRN, ...overrides }),
});

/** That collection settled with `status` (credit 79,785 and fee 1,215 unless overridden). */
export const collectionSettled = (
  status: CollectionStatus,
  overrides: Partial<PublishedCollectionV1> = {},
): PaymentTrigger => ({
  type: 'CollectionSettled',
  collection: collection({
    prn: PRN,
    status,
    statusMessage: status === 'COMPLETED' ? 'Transaction completed successfully' : 'Transaction failed',
    ...overrides,
  }),
});

export const TIMER_DUE: PaymentTrigger = { type: 'TimerDue' };

/** The step that holds the PRN amount in the wallet in place of the fee hold, before the biller is paid. */
export const holdPrnAmount = (now: string) => ({
  type: 'Execute',
  command: { type: 'Hold', wallet: WALLET, holdId: `prn:${REF}`, amount: 81000, replaces: `fee:${REF}`, at: now },
});

// ---- the scripts ----

/** What the scripted biller answers, call by call; a call it has no answer left for fails the spec. */
export interface BillerScript {
  /** The biller's view of the PRN at each lookup (null: it does not know the PRN). */
  lookup?: Array<PrnDetails | null | 'unreachable'>;
  /** The name the biller gives the service of a PRN it knows. */
  serviceName?: string;
  /** Its answer to each payment: made or processing, refused for good (with its reason), or none at all. */
  pay?: Array<BillerPaymentAnswer | { refused: string } | 'unreachable'>;
  /** What it says when asked about the payment's key. */
  ask?: Array<BillerPaymentAnswer | 'no payment' | 'unreachable'>;
}

/** The code the ledger refuses a hold with, by the hold's purpose; every other wallet command is accepted. */
export type LedgerScript = Partial<Record<WalletHoldPurpose, RejectionCode>>;

export const NO_FUNDS_FOR_FEE: LedgerScript = { FEE: 'insufficient_funds' };
export const NO_FUNDS_FOR_PRN: LedgerScript = { PRN_PAYMENT: 'insufficient_funds' };

export const PAID = {
  status: 'SUCCESSFUL',
  billerPaymentId: 'ura-pay-7',
  receiptNumber: 'RCPT-7',
} as const satisfies BillerPaymentAnswer;
export const PROCESSING: BillerPaymentAnswer = { status: 'PENDING' };

export interface Script {
  biller?: BillerScript;
  ledger?: LedgerScript;
  /** The retry schedule, when a spec needs it shorter than the default. */
  retry?: RetryPolicy;
}

export const UNREACHABLE = new Error('the scripted biller is unreachable');

// ---- the driver ----

export interface Run {
  outputs: ProcessOutput<PaymentCommand, PaymentCall>[];
  /** The payment's events the run recorded. */
  events: ServicePaymentEvent[];
  /** The payment after the run. */
  payment: ServicePaymentState;
}

const isWalletCommand = (command: PaymentCommand): command is WalletCommand => 'wallet' in command;

/** given(events).when(trigger, now, script): the run from `trigger` until it ends, every step at `now`. */
export function given(history: ServicePaymentEvent[]) {
  return {
    async when(
      trigger: PaymentTrigger,
      now: string,
      { biller = {}, ledger = {}, retry = POLICY.retry }: Script = {},
    ): Promise<Run> {
      const answers = {
        lookup: [...(biller.lookup ?? [])],
        pay: [...(biller.pay ?? [])],
        ask: [...(biller.ask ?? [])],
      };
      const events: ServicePaymentEvent[] = [];
      const start: PaymentRun = { trigger, payment: fold(servicePaymentDecider, history), now };
      const { outputs, state } = await recordRun(
        servicePaymentProcess({ ...POLICY, retry }),
        { type: 'Triggered' },
        start,
        {
          async execute(command, run) {
            if (isWalletCommand(command)) return ledgerAnswer(command, run, ledger);
            const decided = decideChecked(command, run.payment);
            events.push(...decided);
            const payment = decided.reduce(servicePaymentDecider.evolve, run.payment);
            return {
              state: { ...run, payment },
              input: { type: 'Executed', command: command.type, changed: decided.length > 0 },
            };
          },
          // Each answer as the biller's connector (libs/payments/service biller-calls.ts) gives it to the process.
          async call(call) {
            switch (call.type) {
              case 'LookUpPrn':
                return next(call, answers.lookup, (details) =>
                  details
                    ? { type: 'PrnLookedUp', details, serviceName: biller.serviceName }
                    : { type: 'PrnLookedUp', details },
                );
              case 'PayBiller':
                return next(call, answers.pay, (answer) =>
                  'refused' in answer
                    ? { type: 'BillerRefused', reason: answer.refused }
                    : { type: 'BillerAnswered', answer },
                );
              case 'AskBiller':
                return next(call, answers.ask, (answer) =>
                  answer === 'no payment' ? { type: 'BillerKnowsNoPayment' } : { type: 'BillerAnswered', answer },
                );
            }
          },
        },
      );
      return { outputs, events, payment: state.payment };
    },
  };
}

function ledgerAnswer(command: WalletCommand, run: PaymentRun, ledger: LedgerScript) {
  const refusal = command.type === 'Hold' ? ledger[describeHold(command.holdId).purpose] : undefined;
  if (!refusal) return { state: run, input: { type: 'Executed', command: command.type, changed: true } as const };
  const error = new CommandRejectedError(refusal, 'the scripted ledger refuses the hold');
  return {
    state: run,
    input: { type: 'Refused', command: command.type, code: refusal, error } as const,
    refused: true,
  };
}

/** The biller's next scripted answer to `call` as the process's input. */
function next<Answer>(
  call: PaymentCall,
  answers: Array<Answer | 'unreachable'>,
  input: (answer: Answer) => PaymentInput,
): PaymentInput {
  if (answers.length === 0) throw new Error(`the biller has no scripted answer to ${call.type}`);
  const answer = answers.shift() as Answer | 'unreachable';
  return answer === 'unreachable'
    ? { type: 'BillerUnreachable', call: call.type, reason: 'biller unavailable (503)', error: UNREACHABLE }
    : input(answer);
}
