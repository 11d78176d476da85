import { Inject } from '@nestjs/common';
import { Command, CommandHandler, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import { FindRefund, ListRefunds, RefundedAmount, RequestRefund } from '@paygate/contracts';
import type { DueTimer, TimerVerdict } from '@paygate/timers';
import { DisbursementsService } from './disbursements.service';

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

export const DISBURSEMENT_HANDLERS = [
  RequestRefundHandler,
  FindRefundHandler,
  ListRefundsHandler,
  RefundedAmountHandler,
  FireMoneyOutTimerHandler,
];
