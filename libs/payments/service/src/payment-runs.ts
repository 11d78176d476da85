import { CommandRejectedError, walletId } from '@paygate/contracts';
import { runProcess, type ProcessEffects, type RunEnd } from '@paygate/decider';
import type { DeciderRuntime } from '@paygate/event-store';
import type { Logger } from '@paygate/logging';
import type {
  PaymentCall,
  PaymentCommand,
  PaymentInput,
  PaymentProcess,
  PaymentRun,
  PaymentTrigger,
  ServicePaymentCommand,
  ServicePaymentEvent,
  ServicePaymentState,
  WalletCommand,
  WalletEvent,
  WalletState,
} from '@paygate/payments-domain';

export type ServicePaymentRuntime = DeciderRuntime<ServicePaymentCommand, ServicePaymentEvent, ServicePaymentState>;
export type WalletRuntime = DeciderRuntime<WalletCommand, WalletEvent, WalletState>;

export interface PaymentRunsDeps {
  payments: ServicePaymentRuntime;
  wallets: WalletRuntime;
  process: PaymentProcess;
  /** Carries out a biller call (biller-calls.ts). */
  call: (call: PaymentCall) => Promise<PaymentInput>;
  /** Told of every state a command changed (finished-payments.ts). */
  changed: (state: ServicePaymentState) => void;
  log: Logger;
  now: () => Date;
}

const isWalletCommand = (command: PaymentCommand): command is WalletCommand => 'wallet' in command;

/**
 * Runs of the service payment process with libs/decider's runProcess: a payment's commands go to its
 * stream, a wallet's to the wallet's, and the ledger's refusal of one (insufficient funds) is an input
 * the process decides on.
 */
export class PaymentRuns {
  constructor(private readonly deps: PaymentRunsDeps) {}

  /** One run for the payment of `internalReference` (the collection's). */
  async run(trigger: PaymentTrigger, internalReference: string): Promise<RunEnd> {
    const { payments, wallets, process, call, changed, log } = this.deps;
    const now = () => this.deps.now().toISOString();
    const effects: ProcessEffects<PaymentInput, PaymentRun, PaymentCommand, PaymentCall> = {
      execute: async (command, run) => {
        if (isWalletCommand(command)) {
          try {
            await wallets.handle(walletId(command.wallet), command);
          } catch (error) {
            if (!(error instanceof CommandRejectedError)) throw error;
            const input: PaymentInput = { type: 'Refused', command: command.type, code: error.code, error };
            return { state: run, input, refused: true };
          }
          return { state: { ...run, now: now() }, input: { type: 'Executed', command: command.type, changed: true } };
        }
        const handled = await payments.handle(internalReference, command);
        const recorded = handled.events.length > 0;
        if (recorded) changed(handled.state);
        const input: PaymentInput = { type: 'Executed', command: command.type, changed: recorded };
        return { state: { ...run, payment: handled.state, now: now() }, input };
      },
      call,
      rejection: ({ message }) => new Error(message),
    };
    // Only a collect-for-payment collection has a payment: any other's settlement only credits the wallet.
    const hasPayment = trigger.type !== 'CollectionSettled' || trigger.collection.prn !== undefined;
    const payment = hasPayment ? (await payments.load(internalReference)).state : null;
    const { end } = await runProcess(process, { type: 'Triggered' }, { trigger, payment, now: now() }, effects);
    if (end.note) log.warn(end.note, { internal_reference: internalReference });
    return end;
  }
}
