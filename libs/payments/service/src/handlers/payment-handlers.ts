import { Inject } from '@nestjs/common';
import { CommandHandler, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import { PaymentsService } from '../payments.service';
import { FindServicePayment, TopUpWallet, WalletBalances } from './payment-messages';

/** Each handler hands its message to the use case; the rules live in the deciders. */
@QueryHandler(WalletBalances)
export class WalletBalancesHandler implements IQueryHandler<WalletBalances> {
  constructor(@Inject(PaymentsService) private readonly payments: PaymentsService) {}
  execute({ payload }: WalletBalances) {
    return this.payments.walletBalances(payload);
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

export const PAYMENT_HANDLERS = [WalletBalancesHandler, TopUpWalletHandler, FindServicePaymentHandler];
