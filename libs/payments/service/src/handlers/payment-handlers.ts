import { Inject } from '@nestjs/common';
import { Command, CommandHandler, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import {
  FindServicePayment,
  HoldMoneyOut,
  ReversePayout,
  SettleMoneyOut,
  ListServicePayments,
  TopUpWallet,
  WalletBalances,
  WalletStatement,
  type IntegrationEnvelope,
} from '@paygate/contracts';
import type { PaymentTimerKind } from '@paygate/payments-domain';
import type { DueTimer, TimerVerdict } from '@paygate/timers';
import { PaymentsService } from '../payments.service';

/** An event the collections context published: a collect-for-payment's PRN to validate, or a collection to settle. */
export class HandleCollectionEvent extends Command<void> {
  constructor(readonly published: IntegrationEnvelope) {
    super();
  }
}

/** A payment timer come due (the timer worker's tick). */
export class FirePaymentTimer extends Command<TimerVerdict> {
  constructor(readonly timer: DueTimer<PaymentTimerKind>) {
    super();
  }
}

/** Each handler hands its message to the use case; the rules live in the deciders. */
@QueryHandler(WalletBalances)
export class WalletBalancesHandler implements IQueryHandler<WalletBalances> {
  constructor(@Inject(PaymentsService) private readonly payments: PaymentsService) {}
  execute({ payload }: WalletBalances) {
    return this.payments.walletBalances(payload);
  }
}

@QueryHandler(WalletStatement)
export class WalletStatementHandler implements IQueryHandler<WalletStatement> {
  constructor(@Inject(PaymentsService) private readonly payments: PaymentsService) {}
  execute({ payload }: WalletStatement) {
    return this.payments.walletStatement(payload);
  }
}

@CommandHandler(TopUpWallet)
export class TopUpWalletHandler implements ICommandHandler<TopUpWallet> {
  constructor(@Inject(PaymentsService) private readonly payments: PaymentsService) {}
  execute({ payload }: TopUpWallet) {
    return this.payments.topUp(payload);
  }
}

@QueryHandler(FindServicePayment)
export class FindServicePaymentHandler implements IQueryHandler<FindServicePayment> {
  constructor(@Inject(PaymentsService) private readonly payments: PaymentsService) {}
  execute({ payload }: FindServicePayment) {
    return this.payments.findServicePayment(payload);
  }
}

@QueryHandler(ListServicePayments)
export class ListServicePaymentsHandler implements IQueryHandler<ListServicePayments> {
  constructor(@Inject(PaymentsService) private readonly payments: PaymentsService) {}
  execute({ payload }: ListServicePayments) {
    return this.payments.listServicePayments(payload);
  }
}

@CommandHandler(HoldMoneyOut)
export class HoldMoneyOutHandler implements ICommandHandler<HoldMoneyOut> {
  constructor(@Inject(PaymentsService) private readonly payments: PaymentsService) {}
  execute({ payload }: HoldMoneyOut) {
    return this.payments.holdMoneyOut(payload);
  }
}

@CommandHandler(SettleMoneyOut)
export class SettleMoneyOutHandler implements ICommandHandler<SettleMoneyOut> {
  constructor(@Inject(PaymentsService) private readonly payments: PaymentsService) {}
  execute({ payload }: SettleMoneyOut) {
    return this.payments.settleMoneyOut(payload);
  }
}

@CommandHandler(ReversePayout)
export class ReversePayoutHandler implements ICommandHandler<ReversePayout> {
  constructor(@Inject(PaymentsService) private readonly payments: PaymentsService) {}
  execute({ payload }: ReversePayout) {
    return this.payments.reversePayout(payload);
  }
}

@CommandHandler(HandleCollectionEvent)
export class HandleCollectionEventHandler implements ICommandHandler<HandleCollectionEvent> {
  constructor(@Inject(PaymentsService) private readonly payments: PaymentsService) {}
  execute({ published }: HandleCollectionEvent) {
    return this.payments.handleCollectionEvent(published);
  }
}

@CommandHandler(FirePaymentTimer)
export class FirePaymentTimerHandler implements ICommandHandler<FirePaymentTimer> {
  constructor(@Inject(PaymentsService) private readonly payments: PaymentsService) {}
  execute({ timer }: FirePaymentTimer) {
    return this.payments.fireTimer(timer);
  }
}

export const PAYMENT_HANDLERS = [
  WalletBalancesHandler,
  WalletStatementHandler,
  TopUpWalletHandler,
  FindServicePaymentHandler,
  ListServicePaymentsHandler,
  HoldMoneyOutHandler,
  SettleMoneyOutHandler,
  ReversePayoutHandler,
  HandleCollectionEventHandler,
  FirePaymentTimerHandler,
];
