import { handleToReply, replyValue, UnknownCommandError, type CommandBus, type CommandHandler } from '../command-bus';

/** Standalone mode: every service lives in this process, so a command is a function call. */
export class InProcessCommandBus implements CommandBus {
  private readonly services = new Map<string, Record<string, CommandHandler>>();

  async send<Reply>(service: string, command: string, payload: Record<string, unknown>): Promise<Reply> {
    const handlers = this.services.get(service);
    if (!handlers) throw new UnknownCommandError(service, command);
    // A JSON round trip gives handlers the same plain data a broker would deliver.
    const reply = await handleToReply(handlers[command], JSON.parse(JSON.stringify(payload)));
    return replyValue<Reply>(JSON.parse(JSON.stringify(reply)));
  }

  async serve(service: string, handlers: Record<string, CommandHandler>): Promise<void> {
    this.services.set(service, { ...this.services.get(service), ...handlers });
  }

  async close(): Promise<void> {
    this.services.clear();
  }
}
