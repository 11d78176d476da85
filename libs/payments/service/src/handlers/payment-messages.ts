import { Command, Query } from '@nestjs/cqrs';
import type { FindServicePaymentQuery, PaymentsContract, ResultOf, TopUpWalletCommand, WalletBalancesQuery } from '@paygate/contracts';

/** The payments contract's messages as @nestjs/cqrs commands and queries (one class each). */
export class WalletBalances extends Query<ResultOf<PaymentsContract, 'payments.walletBalances'>> {
  constructor(readonly payload: WalletBalancesQuery) {
    super();
  }
}

export class TopUpWallet extends Command<ResultOf<PaymentsContract, 'payments.topUp'>> {
  constructor(readonly payload: TopUpWalletCommand) {
    super();
  }
}

export class FindServicePayment extends Query<ResultOf<PaymentsContract, 'payments.findServicePayment'>> {
  constructor(readonly payload: FindServicePaymentQuery) {
    super();
  }
}
