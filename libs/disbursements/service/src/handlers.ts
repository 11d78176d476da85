import { Inject } from '@nestjs/common';
import { Command, CommandHandler, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import {
  ApprovePayout,
  CheckRecipient,
  FindPayout,
  FindRefund,
  ListMoneyOutAttention,
  ListPayoutApprovals,
  ListPayouts,
  ListRefunds,
  RefundedAmount,
  RequestPayout,
  RequestRefund,
} from '@paygate/contracts';
import type { DueTimer, TimerVerdict } from '@paygate/timers';
import { DisbursementsService } from './disbursements.service';
import { Payouts } from './payouts.service';

/** A money-out timer come due (the timer worker's tick). */
export class FireMoneyOutTimer extends Command<TimerVerdict> {
  constructor(readonly timer: DueTimer<string>) {
    super();
  }
}

/** Each handler hands its message to the use case; the rules live in the disbursements domain. */
@CommandHandler(RequestRefund)
export class RequestRefundHandler implements ICommandHandler<RequestRefund> {
  constructor(@Inject(DisbursementsService) private readonly disbursements: DisbursementsService) {}
  execute({ payload }: RequestRefund) {
    return this.disbursements.requestRefund(payload);
  }
}

@QueryHandler(FindRefund)
export class FindRefundHandler implements IQueryHandler<FindRefund> {
  constructor(@Inject(DisbursementsService) private readonly disbursements: DisbursementsService) {}
  execute({ payload }: FindRefund) {
    return this.disbursements.findRefund(payload);
  }
}

@QueryHandler(ListRefunds)
export class ListRefundsHandler implements IQueryHandler<ListRefunds> {
  constructor(@Inject(DisbursementsService) private readonly disbursements: DisbursementsService) {}
  execute({ payload }: ListRefunds) {
    return this.disbursements.listRefunds(payload);
  }
}

@QueryHandler(RefundedAmount)
export class RefundedAmountHandler implements IQueryHandler<RefundedAmount> {
  constructor(@Inject(DisbursementsService) private readonly disbursements: DisbursementsService) {}
  execute({ payload }: RefundedAmount) {
    return this.disbursements.refundedAmount(payload);
  }
}

@CommandHandler(FireMoneyOutTimer)
export class FireMoneyOutTimerHandler implements ICommandHandler<FireMoneyOutTimer> {
  constructor(@Inject(DisbursementsService) private readonly disbursements: DisbursementsService) {}
  execute({ timer }: FireMoneyOutTimer) {
    return this.disbursements.fireTimer(timer);
  }
}

@QueryHandler(CheckRecipient)
export class CheckRecipientHandler implements IQueryHandler<CheckRecipient> {
  constructor(@Inject(Payouts) private readonly payouts: Payouts) {}
  execute({ payload }: CheckRecipient) {
    return this.payouts.checkRecipient(payload);
  }
}

@CommandHandler(RequestPayout)
export class RequestPayoutHandler implements ICommandHandler<RequestPayout> {
  constructor(@Inject(Payouts) private readonly payouts: Payouts) {}
  execute({ payload }: RequestPayout) {
    return this.payouts.requestPayout(payload);
  }
}

@QueryHandler(FindPayout)
export class FindPayoutHandler implements IQueryHandler<FindPayout> {
  constructor(@Inject(Payouts) private readonly payouts: Payouts) {}
  execute({ payload }: FindPayout) {
    return this.payouts.findPayout(payload);
  }
}

@QueryHandler(ListPayouts)
export class ListPayoutsHandler implements IQueryHandler<ListPayouts> {
  constructor(@Inject(Payouts) private readonly payouts: Payouts) {}
  execute({ payload }: ListPayouts) {
    return this.payouts.listPayouts(payload);
  }
}

@CommandHandler(ApprovePayout)
export class ApprovePayoutHandler implements ICommandHandler<ApprovePayout> {
  constructor(@Inject(Payouts) private readonly payouts: Payouts) {}
  execute({ payload }: ApprovePayout) {
    return this.payouts.approvePayout(payload);
  }
}

@QueryHandler(ListPayoutApprovals)
export class ListPayoutApprovalsHandler implements IQueryHandler<ListPayoutApprovals> {
  constructor(@Inject(Payouts) private readonly payouts: Payouts) {}
  execute({ payload }: ListPayoutApprovals) {
    return this.payouts.listPayoutApprovals(payload);
  }
}

@QueryHandler(ListMoneyOutAttention)
export class ListMoneyOutAttentionHandler implements IQueryHandler<ListMoneyOutAttention> {
  constructor(@Inject(Payouts) private readonly payouts: Payouts) {}
  execute({ payload }: ListMoneyOutAttention) {
    return this.payouts.listMoneyOutAttention(payload);
  }
}

export const DISBURSEMENT_HANDLERS = [
  RequestRefundHandler,
  FindRefundHandler,
  ListRefundsHandler,
  RefundedAmountHandler,
  CheckRecipientHandler,
  RequestPayoutHandler,
  FindPayoutHandler,
  ListPayoutsHandler,
  ApprovePayoutHandler,
  ListPayoutApprovalsHandler,
  ListMoneyOutAttentionHandler,
  FireMoneyOutTimerHandler,
];
