import { Command, Query } from '@nestjs/cqrs';
import type {
  Acknowledgement,
  CollectionsContract,
  ConfirmCollectionCommand,
  CurrentCollectionQuery,
  FindCollectionQuery,
  FoundCollection,
  InitializeCollectionCommand,
  ResultOf,
} from '@paygate/contracts';

/** The collections contract's messages as @nestjs/cqrs commands and queries (one class each). */
export class InitializeCollection extends Command<Acknowledgement> {
  constructor(readonly payload: InitializeCollectionCommand) {
    super();
  }
}

export class ConfirmCollection extends Command<Acknowledgement> {
  constructor(readonly payload: ConfirmCollectionCommand) {
    super();
  }
}

export class FindCollection extends Query<FoundCollection> {
  constructor(readonly payload: FindCollectionQuery) {
    super();
  }
}

export class CurrentCollection extends Query<ResultOf<CollectionsContract, 'collections.current'>> {
  constructor(readonly payload: CurrentCollectionQuery) {
    super();
  }
}

export class CollectForPayment extends Command<Acknowledgement> {
  constructor(readonly payload: InitializeCollectionCommand) {
    super();
  }
}

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
