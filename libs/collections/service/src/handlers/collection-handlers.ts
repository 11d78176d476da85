import { Inject } from '@nestjs/common';
import { Command, CommandHandler, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { CollectionTimerKind } from '@paygate/collections-domain';
import {
  CollectForPayment,
  ConfirmCollection,
  CurrentCollection,
  FindCollection,
  InitializeCollection,
  ListCollections,
  CollectionActivity,
  CollectionTimeline,
} from '@paygate/contracts';
import type { DueTimer, TimerVerdict } from '@paygate/timers';
import { CollectionsService } from '../collections.service';

/** service-payments' verdict on a collect-for-payment PRN (from its published events). */
export class AcceptPrn extends Command<void> {
  constructor(readonly internalReference: string) {
    super();
  }
}

export class RejectPrn extends Command<void> {
  constructor(
    readonly internalReference: string,
    readonly reason: string,
  ) {
    super();
  }
}

/** A collection timer come due (the timer worker's tick). */
export class FireCollectionTimer extends Command<TimerVerdict> {
  constructor(readonly timer: DueTimer<CollectionTimerKind>) {
    super();
  }
}

/** Each handler hands its message to the use case; the rules live in the collection process. */
@CommandHandler(InitializeCollection)
export class InitializeCollectionHandler implements ICommandHandler<InitializeCollection> {
  constructor(@Inject(CollectionsService) private readonly collections: CollectionsService) {}
  execute({ payload }: InitializeCollection) {
    return this.collections.initialize(payload);
  }
}

@CommandHandler(ConfirmCollection)
export class ConfirmCollectionHandler implements ICommandHandler<ConfirmCollection> {
  constructor(@Inject(CollectionsService) private readonly collections: CollectionsService) {}
  execute({ payload }: ConfirmCollection) {
    return this.collections.confirm(payload);
  }
}

@CommandHandler(CollectForPayment)
export class CollectForPaymentHandler implements ICommandHandler<CollectForPayment> {
  constructor(@Inject(CollectionsService) private readonly collections: CollectionsService) {}
  execute({ payload }: CollectForPayment) {
    return this.collections.collectForPayment(payload);
  }
}

@QueryHandler(FindCollection)
export class FindCollectionHandler implements IQueryHandler<FindCollection> {
  constructor(@Inject(CollectionsService) private readonly collections: CollectionsService) {}
  execute({ payload }: FindCollection) {
    return this.collections.queries.find(payload);
  }
}

@QueryHandler(ListCollections)
export class ListCollectionsHandler implements IQueryHandler<ListCollections> {
  constructor(@Inject(CollectionsService) private readonly collections: CollectionsService) {}
  execute({ payload }: ListCollections) {
    return this.collections.queries.list(payload);
  }
}

@QueryHandler(CurrentCollection)
export class CurrentCollectionHandler implements IQueryHandler<CurrentCollection> {
  constructor(@Inject(CollectionsService) private readonly collections: CollectionsService) {}
  execute({ payload }: CurrentCollection) {
    return this.collections.queries.current(payload.internalReference);
  }
}

@QueryHandler(CollectionTimeline)
export class CollectionTimelineHandler implements IQueryHandler<CollectionTimeline> {
  constructor(@Inject(CollectionsService) private readonly collections: CollectionsService) {}
  execute({ payload }: CollectionTimeline) {
    return this.collections.queries.timeline(payload);
  }
}

@QueryHandler(CollectionActivity)
export class CollectionActivityHandler implements IQueryHandler<CollectionActivity> {
  constructor(@Inject(CollectionsService) private readonly collections: CollectionsService) {}
  execute({ payload }: CollectionActivity) {
    return this.collections.queries.activity(payload);
  }
}

@CommandHandler(AcceptPrn)
export class AcceptPrnHandler implements ICommandHandler<AcceptPrn> {
  constructor(@Inject(CollectionsService) private readonly collections: CollectionsService) {}
  execute({ internalReference }: AcceptPrn) {
    return this.collections.acceptPrn(internalReference);
  }
}

@CommandHandler(RejectPrn)
export class RejectPrnHandler implements ICommandHandler<RejectPrn> {
  constructor(@Inject(CollectionsService) private readonly collections: CollectionsService) {}
  execute({ internalReference, reason }: RejectPrn) {
    return this.collections.rejectPrn(internalReference, reason);
  }
}

@CommandHandler(FireCollectionTimer)
export class FireCollectionTimerHandler implements ICommandHandler<FireCollectionTimer> {
  constructor(@Inject(CollectionsService) private readonly collections: CollectionsService) {}
  execute({ timer }: FireCollectionTimer) {
    return this.collections.fireTimer(timer);
  }
}

export const COLLECTION_HANDLERS = [
  InitializeCollectionHandler,
  ConfirmCollectionHandler,
  CollectForPaymentHandler,
  FindCollectionHandler,
  ListCollectionsHandler,
  CurrentCollectionHandler,
  CollectionTimelineHandler,
  CollectionActivityHandler,
  AcceptPrnHandler,
  RejectPrnHandler,
  FireCollectionTimerHandler,
];
