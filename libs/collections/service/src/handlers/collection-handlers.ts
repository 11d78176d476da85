import { Inject } from '@nestjs/common';
import { CommandHandler, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import { CollectionsService } from '../collections.service';
import { COLLECTIONS_SERVICE } from '../tokens';
import { ConfirmCollection, CurrentCollection, FindCollection, InitializeCollection } from './collection-messages';

/** Each handler hands its message to the use case; the rules live in the decider. */
@CommandHandler(InitializeCollection)
export class InitializeCollectionHandler implements ICommandHandler<InitializeCollection> {
  constructor(@Inject(COLLECTIONS_SERVICE) private readonly collections: CollectionsService) {}
  execute({ payload }: InitializeCollection) {
    return this.collections.initialize(payload);
  }
}

@CommandHandler(ConfirmCollection)
export class ConfirmCollectionHandler implements ICommandHandler<ConfirmCollection> {
  constructor(@Inject(COLLECTIONS_SERVICE) private readonly collections: CollectionsService) {}
  execute({ payload }: ConfirmCollection) {
    return this.collections.confirm(payload);
  }
}

@QueryHandler(FindCollection)
export class FindCollectionHandler implements IQueryHandler<FindCollection> {
  constructor(@Inject(COLLECTIONS_SERVICE) private readonly collections: CollectionsService) {}
  execute({ payload }: FindCollection) {
    return this.collections.find(payload);
  }
}

@QueryHandler(CurrentCollection)
export class CurrentCollectionHandler implements IQueryHandler<CurrentCollection> {
  constructor(@Inject(COLLECTIONS_SERVICE) private readonly collections: CollectionsService) {}
  execute({ payload }: CurrentCollection) {
    return this.collections.current(payload.internalReference);
  }
}

export const COLLECTION_HANDLERS = [InitializeCollectionHandler, ConfirmCollectionHandler, FindCollectionHandler, CurrentCollectionHandler];
