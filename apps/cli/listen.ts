import { CliError, oneLine } from '@paygate/analytics';
import { parseOptions, type CliIo, type Command } from './command';
import { httpUrl, merchantApi, refusal, sleep, type MerchantApi } from './merchant-api';

const USAGE = `Usage: paygate listen --forward-to <url> [--api <url>]

Receives the merchant's callbacks as the gateway sends them (a server-sent events stream it opens
to the gateway: nothing needs to reach this machine) and forwards each to <url> with its original
body and signed headers, so the receiver's signature checks pass. One line per callback:
  --> transaction.completed  msg_…  <-- 200 (12 ms)
Reconnects when the gateway goes away, resuming after the last callback; ^C stops it.

  --forward-to <url>  where to POST each callback (http://localhost:4000/hooks)
  --api <url>         the gateway (default PAYGATE_API_URL, or http://127.0.0.1:3000)

Environment: PAYGATE_PUBLIC_KEY and PAYGATE_SECRET_KEY, the merchant's keys.`;

/** Waits before reconnecting: doubling from the first, up to the last. */
const BACKOFF_MS = [500, 1_000, 2_000, 4_000, 8_000, 15_000];
/** A local receiver that has not answered by then is reported as timed out; the next callback goes on. */
const FORWARD_TIMEOUT_MS = 10_000;
const USER_AGENT = 'Paygate-CLI-Forwarder/1';

/** A `callback` event of the stream (the gateway's CallbackStreamController). */
interface StreamedCallback {
  webhook_id: string;
  event: string;
  internal_reference: string;
  body: string;
  headers: Record<string, string>;
}

interface SseEvent {
  id?: string;
  event: string;
  data: string;
}

export const listenCommand: Command = {
  name: 'listen',
  summary: "forward the merchant's callbacks to a local URL, as they are sent",
  usage: USAGE,
  async run(args, io) {
    const values = parseOptions('listen', args, { 'forward-to': { type: 'string' }, api: { type: 'string' } });
    if (values.help) {
      io.stdout.write(USAGE + '\n');
      return 0;
    }
    if (!values['forward-to']) throw new CliError('listen: --forward-to <url> is required (see paygate listen --help)');
    const forwardTo = httpUrl('listen', '--forward-to', values['forward-to']);
    const api = merchantApi('listen', io.env, values.api);
    await new Listener(api, forwardTo, io).run();
    return 0;
  },
};

class Listener {
  /** The last event id received: a reconnect resumes after it. */
  private lastEventId?: string;
  private failures = 0;
  private connectedOnce = false;

  constructor(
    private readonly api: MerchantApi,
    private readonly forwardTo: string,
    private readonly io: CliIo,
  ) {}

  /** Returns on ^C; a refusal that retrying cannot mend (wrong keys) is a CliError. */
  async run(): Promise<void> {
    const { signal } = this.io;
    while (!signal.aborted) {
      let outcome: string;
      try {
        outcome = await this.connect();
      } catch (error) {
        if (error instanceof CliError) throw error;
        outcome = signal.aborted ? 'stopped' : causeOf(error);
      }
      if (signal.aborted) break;
      const delay = BACKOFF_MS[Math.min(this.failures, BACKOFF_MS.length - 1)];
      this.failures += 1;
      this.io.stderr.write(
        `Lost the stream from ${this.api.apiUrl} (${outcome}); reconnecting in ${delay / 1_000} s\n`,
      );
      await sleep(delay, signal);
    }
    this.io.stdout.write('Stopped.\n');
  }

  /** One connection: returns (or throws) when it ends, with what happened. */
  private async connect(): Promise<string> {
    const headers: Record<string, string> = {
      'public-key': this.api.publicKey,
      'secret-key': this.api.secretKey,
      accept: 'text/event-stream',
    };
    if (this.lastEventId) headers['last-event-id'] = this.lastEventId;
    const response = await fetch(`${this.api.apiUrl}/v1/callbacks/stream`, { headers, signal: this.io.signal });
    if (response.status !== 200) {
      const reason = await refusal(response);
      // Keys or a request the gateway refuses will be refused again: stop and say why. 429 (streams in use) and 5xx
      // pass.
      if (response.status >= 400 && response.status < 500 && response.status !== 429)
        throw new CliError(`listen: the gateway refused the stream: ${reason}`);
      return reason;
    }
    if (!response.body) return 'no body';
    for await (const event of sseEvents(response.body)) {
      if (event.id) this.lastEventId = event.id;
      if (event.event === 'ready') {
        this.failures = 0;
        this.io.stdout.write(
          this.connectedOnce
            ? `Reconnected to ${this.api.apiUrl}\n`
            : `Ready! Forwarding callbacks from ${this.api.apiUrl} to ${this.forwardTo} (^C to stop)\n`,
        );
        this.connectedOnce = true;
      } else if (event.event === 'callback') {
        // One at a time, in the stream's order: a transaction's callbacks reach the receiver as the gateway sent them.
        await this.forward(JSON.parse(event.data) as StreamedCallback);
      }
    }
    return 'the gateway closed it';
  }

  private async forward(callback: StreamedCallback): Promise<void> {
    const started = performance.now();
    let answer: string;
    try {
      const response = await fetch(this.forwardTo, {
        method: 'POST',
        headers: { ...callback.headers, 'content-type': 'application/json', 'user-agent': USER_AGENT },
        body: callback.body,
        redirect: 'manual',
        signal: AbortSignal.any([this.io.signal, AbortSignal.timeout(FORWARD_TIMEOUT_MS)]),
      });
      await response.arrayBuffer().catch(() => undefined);
      answer = String(response.status);
    } catch (error) {
      if (this.io.signal.aborted) return;
      answer = `failed: ${causeOf(error)}`;
    }
    const ms = Math.round(performance.now() - started);
    this.io.stdout.write(`--> ${callback.event.padEnd(21)}  ${callback.webhook_id}  <-- ${answer} (${ms} ms)\n`);
  }
}

/**
 * fetch's own message is "fetch failed" or "terminated"; the cause says ECONNREFUSED, "other side closed" or the
 * time-out.
 */
function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if ((error as Error).name === 'TimeoutError') return `no answer within ${FORWARD_TIMEOUT_MS / 1_000} s`;
  return oneLine(cause?.code ?? cause?.message ?? error);
}

/** The events of a text/event-stream body (the WHATWG format: id, event, data lines; comments ignored). */
async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event: SseEvent = { event: 'message', data: '' };
  let hasData = false;
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
      if (line === '') {
        if (hasData || event.id !== undefined) yield event;
        event = { event: 'message', data: '' };
        hasData = false;
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') {
        event.data = hasData ? `${event.data}\n${value}` : value;
        hasData = true;
      } else if (field === 'event') event.event = value;
      else if (field === 'id') event.id = value;
    }
  }
}
