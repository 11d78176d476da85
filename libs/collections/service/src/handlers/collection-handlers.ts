import { Inject } from '@nestjs/common';
import { CommandHandler, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import { CollectionsService } from '../collections.service';
import { AcceptPrn, CollectForPayment, ConfirmCollection, CurrentCollection, FindCollection, InitializeCollection, RejectPrn } from './collection-messages';

/** Each handler hands its message to the use case; the rules live in the decider. */
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

@QueryHandler(FindCollection)
export class FindCollectionHandler implements IQueryHandler<FindCollection> {
  constructor(@Inject(CollectionsService) private readonly collections: CollectionsService) {}
  execute({ payload }: FindCollection) {
    return this.collections.find(payload);
  }
}

@QueryHandler(CurrentCollection)
export class CurrentCollectionHandler implements IQueryHandler<CurrentCollection> {
  constructor(@Inject(CollectionsService) private readonly collections: CollectionsService) {}
  execute({ payload }: CurrentCollection) {
    return this.collections.current(payload.internalReference);
  }
}

@CommandHandler(CollectForPayment)
export class CollectForPaymentHandler implements ICommandHandler<CollectForPayment> {
  constructor(@Inject(CollectionsService) private readonly collections: CollectionsService) {}
  execute({ payload }: CollectForPayment) {
    return this.collections.collectForPayment(payload);
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

export const COLLECTION_HANDLERS = [
  InitializeCollectionHandler,
  ConfirmCollectionHandler,
  FindCollectionHandler,
  CurrentCollectionHandler,
  CollectForPaymentHandler,
  AcceptPrnHandler,
  RejectPrnHandler,
];
