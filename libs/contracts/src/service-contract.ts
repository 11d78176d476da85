import { Command, Query, type CommandResult } from '@nestjs/cqrs';

/**
 * A service's request-reply surface is a set of message classes: each is a @nestjs/cqrs command
 * (changes state) or query (reads), typed by its result and carrying its payload. The sender
 * imports the class, the service registers its handler with `@CommandHandler(TheClass)`, so the
 * path from a send to the code that decides it is one import away, and nothing on it casts.
 */
export abstract class ContractCommand<Payload, Result> extends Command<Result> {
  constructor(readonly payload: Payload) {
    super();
  }
}

export abstract class ContractQuery<Payload, Result> extends Query<Result> {
  constructor(readonly payload: Payload) {
    super();
  }
}

export type ContractMessage<Result = unknown> = ContractCommand<unknown, Result> | ContractQuery<unknown, Result>;

export type MessageClass = new (payload: never) => ContractMessage;

/** The classes of a contract by their names on the wire. */
export type ContractMessages = Readonly<Record<string, MessageClass>>;

/**
 * The apps of a distributed layout, as each one's command certificate names it
 * (`spiffe://paygate/<app>`, docs/security.md "Service commands").
 */
export const APPS = ['api-gateway', 'collections', 'service-payments', 'webhook-dispatcher', 'sandbox'] as const;
export type AppName = (typeof APPS)[number];

/** Which app serves a contract and which apps may send it messages: the command port admits no other peer. */
export interface ContractAccess {
  readonly servedBy: AppName;
  readonly sentBy: readonly AppName[];
}

export interface ServiceContract<Messages extends ContractMessages = ContractMessages> extends ContractAccess {
  /** The service that serves the contract (command routes are by this name). */
  readonly name: string;
  readonly messages: Messages;
}

/** Where a message goes: its service, and its name on the wire. */
export interface MessageAddress {
  service: string;
  message: string;
}

export type ResultOf<Messages extends ContractMessages, Name extends keyof Messages> = CommandResult<
  InstanceType<Messages[Name]>
>;

const addresses = new Map<MessageClass, MessageAddress>();

/** Declares a service's contract; each class belongs to one contract, under one wire name. */
export function serviceContract<Messages extends ContractMessages>(
  name: string,
  access: ContractAccess,
  messages: Messages,
): ServiceContract<Messages> {
  for (const [message, type] of Object.entries(messages)) {
    const known = addresses.get(type);
    if (known) throw new Error(`${type.name} is ${known.service}'s ${known.message} already`);
    addresses.set(type, { service: name, message });
  }
  servingApps.set(name, access.servedBy);
  return { name, ...access, messages };
}

const servingApps = new Map<string, AppName>();

/** The app that serves a service's messages (what a sender checks the serving peer's certificate against). */
export function servingAppOf(service: string): AppName | undefined {
  return servingApps.get(service);
}

/** The service and wire name of a message, from the contract that lists its class. */
export function addressOf(message: ContractMessage): MessageAddress {
  const address = addresses.get(message.constructor as MessageClass);
  if (!address) throw new Error(`${message.constructor.name} is in no service's contract`);
  return address;
}
