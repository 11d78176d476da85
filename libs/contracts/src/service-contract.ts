/**
 * A service's request-reply surface as a type: each message name maps to its payload and
 * result. Senders and servers are typed by the same contract, so nothing on the command path
 * casts. `kind` tells a command (changes state) from a query (reads).
 */
export interface MessageSpec<Payload, Result> {
  kind: 'command' | 'query';
  payload: Payload;
  result: Result;
}

export type ServiceContract = Record<string, MessageSpec<unknown, unknown>>;

/** A service by name, carrying its contract's type for the buses. */
export interface ServiceRef<Contract extends ServiceContract> {
  readonly name: string;
  /** Type only: never set. */
  readonly contract?: Contract;
}

export const serviceRef = <Contract extends ServiceContract>(name: string): ServiceRef<Contract> => ({ name });

export type MessageName<Contract extends ServiceContract> = keyof Contract & string;
export type PayloadOf<Contract extends ServiceContract, Name extends MessageName<Contract>> = Contract[Name]['payload'];
export type ResultOf<Contract extends ServiceContract, Name extends MessageName<Contract>> = Contract[Name]['result'];

/** One handler per message of the contract: serving a contract partly is a type error. */
export type ServiceHandlers<Contract extends ServiceContract> = {
  [Name in MessageName<Contract>]: (payload: PayloadOf<Contract, Name>) => Promise<ResultOf<Contract, Name>>;
};
