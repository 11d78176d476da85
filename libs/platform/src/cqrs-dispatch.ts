import { Query, type CommandBus, type QueryBus } from '@nestjs/cqrs';
import type { ContractMessage } from '@paygate/contracts';
import type { ExecuteMessage } from '@paygate/messaging';

/**
 * How a service serves its contract: `commands.serve(CONTRACT, executeWithCqrs(commandBus, queryBus))`.
 * Each message goes to the handler @nestjs/cqrs holds for its class (`@CommandHandler(TheClass)`).
 */
export function executeWithCqrs(commandBus: CommandBus, queryBus: QueryBus): ExecuteMessage {
  return (message: ContractMessage) =>
    message instanceof Query ? queryBus.execute(message) : commandBus.execute(message);
}
