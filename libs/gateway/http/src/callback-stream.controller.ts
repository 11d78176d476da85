import {
  BadRequestException,
  Controller,
  Get,
  HttpException,
  Inject,
  Injectable,
  Req,
  Res,
  ServiceUnavailableException,
  type OnModuleDestroy,
} from '@nestjs/common';
import { ApiHeader, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '@paygate/config';
import { StreamCallbacks, type StreamedCallback } from '@paygate/contracts';
import type { Merchant } from '@paygate/merchants';
import { CONFIG, DRAIN, INFRASTRUCTURE, LOGGER, type Drain, type Infrastructure } from '@paygate/platform';
import type { Logger } from '@paygate/logging';
import { CurrentMerchant, MerchantApi, RequireSecretKey } from './guards';
import { MerchantOperation } from './openapi/responses';

/** Streams one merchant may hold open on one gateway: a developer's listener or two, not a fan-out. */
export const MAX_STREAMS_PER_MERCHANT = 5;
/** A comment line this often keeps proxies and load balancers from closing an idle stream. */
const HEARTBEAT_MS = 15_000;
/** One long poll of the dispatcher waits at most this long (less when COMMAND_TIMEOUT_MS is shorter). */
const POLL_WAIT_MS = 5_000;
/** After the dispatcher failed to answer, the next poll waits this long. */
const RETRY_MS = 1_000;
const PAGE = 100;
const CURSOR = /^\d{1,20}-\d{1,20}$/;

/** The open streams, per merchant: the cap, and ending them all when the gateway shuts down. */
@Injectable()
export class CallbackStreams implements OnModuleDestroy {
  private readonly open = new Map<string, Set<() => void>>();
  private draining = false;

  constructor(@Inject(DRAIN) drain: Drain) {
    // A draining gateway ends its streams at once (clients reconnect to another instance) rather than holding the
    // drain.
    drain.onBegin(() => {
      this.draining = true;
      this.endAll();
    });
  }

  /**
   * Takes a slot for the merchant, or refuses with 429 (503 while draining); `end` is called on shutdown. Returns the
   * release.
   */
  take(merchantId: string, end: () => void): () => void {
    if (this.draining) throw new ServiceUnavailableException('the gateway is shutting down; reconnect');
    const streams = this.open.get(merchantId) ?? new Set();
    if (streams.size >= MAX_STREAMS_PER_MERCHANT)
      throw new HttpException(
        {
          message: `too many open callback streams: at most ${MAX_STREAMS_PER_MERCHANT} per merchant; close one (paygate listen) and try again`,
          data: { retry_after: STREAM_SLOT_RETRY_SECONDS },
        },
        429,
      );
    streams.add(end);
    this.open.set(merchantId, streams);
    return () => {
      streams.delete(end);
      if (streams.size === 0 && this.open.get(merchantId) === streams) this.open.delete(merchantId);
    };
  }

  /** Nest runs this before it closes the HTTP server, which would otherwise wait for every stream. */
  onModuleDestroy(): void {
    this.endAll();
  }

  private endAll(): void {
    for (const streams of this.open.values()) for (const end of [...streams]) end();
  }
}

/** How long a merchant at its stream cap is told to wait: a slot frees when one of its streams closes. */
const STREAM_SLOT_RETRY_SECONDS = 5;

@ApiTags('callbacks')
@Controller()
export class CallbackStreamController {
  private readonly pollWaitMs: number;
  private readonly commandTimeoutMs: number;

  constructor(
    @Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure,
    @Inject(CONFIG) config: Config,
    @Inject(LOGGER) private readonly log: Logger,
    private readonly streams: CallbackStreams,
  ) {
    this.commandTimeoutMs = config.platform.commandTimeoutMs;
    this.pollWaitMs = Math.min(POLL_WAIT_MS, Math.floor(this.commandTimeoutMs / 2));
  }

  @Get(['v1/callbacks/stream', 'callbacks/stream'])
  @MerchantApi()
  @RequireSecretKey()
  @MerchantOperation({
    id: 'streamCallbacks',
    summary: "The merchant's callbacks as they are sent, as server-sent events (paygate listen)",
    description: `Each \`callback\` event carries the exact signed body and its headers (webhook-id, webhook-timestamp, webhook-signature, hmac-signature), also for a merchant without a callback URL. A comment line every 15 s keeps the stream open. At most ${MAX_STREAMS_PER_MERCHANT} streams per merchant are open at once: one more answers 429.`,
    secretKey: true,
    body: false,
    invalid: 'a Last-Event-ID that is not an event id of this stream',
  })
  @ApiHeader({
    name: 'Last-Event-ID',
    required: false,
    description: 'resume after this event id (a reconnect loses nothing of the last hour)',
    schema: { type: 'string' },
  })
  @ApiResponse({
    status: 200,
    description:
      'The stream: a `ready` event with the cursor it reads from, then a `callback` event per callback sent (data: event, webhook id, body, headers)',
    content: { 'text/event-stream': { schema: { type: 'string' } } },
  })
  async stream(
    @CurrentMerchant() merchant: Merchant,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const lastEventId = request.headers['last-event-id'];
    if (lastEventId !== undefined && (typeof lastEventId !== 'string' || !CURSOR.test(lastEventId)))
      throw new BadRequestException('Last-Event-ID is not an event id of this stream');

    let closed = false;
    let streaming = false;
    let wake: (() => void) | undefined;
    const end = () => {
      closed = true;
      wake?.();
      if (!streaming) return;
      // The socket goes with the stream: one the client left half-open would otherwise hold the server's close until
      // keep-alive runs out.
      if (reply.raw.writableEnded) request.raw.socket?.destroy();
      else reply.raw.end(() => request.raw.socket?.destroy());
    };
    let release: () => void;
    try {
      release = this.streams.take(merchant.id, end);
    } catch (error) {
      if (error instanceof HttpException && error.getStatus() === 429)
        void reply.header('retry-after', String(STREAM_SLOT_RETRY_SECONDS));
      throw error;
    }
    let first;
    try {
      // Before the 200: a dispatcher that does not answer is a 503 in the envelope, not a stream that says nothing.
      first = await this.poll(merchant.id, lastEventId, 0);
    } catch (error) {
      release();
      throw error;
    }

    if (closed) {
      // The gateway began shutting down during the first read: answered like any request caught by it.
      release();
      throw new ServiceUnavailableException('the gateway is shutting down; reconnect');
    }
    reply.hijack();
    streaming = true;
    const raw = reply.raw;
    raw.writeHead(200, {
      ...(reply.getHeaders() as Record<string, string>),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      // Proxies that buffer responses (nginx) pass this one through as it comes.
      'x-accel-buffering': 'no',
      // The connection ends with the stream (a client reconnects anyway), so shutting down never waits for it to go
      // idle.
      connection: 'close',
    });
    const write = (text: string) => {
      if (!closed && !raw.writableEnded) raw.write(text);
    };
    // `retry` tells EventSource clients how soon to reconnect; `ready` says from where this stream reads.
    const from = lastEventId ?? first.cursor;
    write(`retry: 2000\nid: ${from}\nevent: ready\ndata: ${JSON.stringify({ cursor: from })}\n\n`);
    let cursor = first.cursor;
    for (const callback of first.callbacks) write(callbackEvent(callback));
    const heartbeat = setInterval(() => write(': keep-alive\n\n'), HEARTBEAT_MS);
    raw.on('close', () => {
      closed = true;
      release();
      wake?.();
    });

    try {
      while (!closed) {
        try {
          const page = await this.poll(merchant.id, cursor, this.pollWaitMs);
          for (const callback of page.callbacks) write(callbackEvent(callback));
          cursor = page.cursor;
        } catch (error) {
          if (closed) break;
          // The dispatcher went away: the stream stays open and asks again; the client's cursor is unchanged.
          this.log.warn('callback stream: the webhook dispatcher did not answer; asking again', {
            merchant_id: merchant.id,
            error,
          });
          await new Promise<void>((resolve) => {
            wake = resolve;
            setTimeout(resolve, RETRY_MS);
          });
        }
      }
    } finally {
      clearInterval(heartbeat);
      release();
      end();
    }
  }

  private poll(merchantId: string, after: string | undefined, waitMs: number) {
    return this.infrastructure.commands.send(new StreamCallbacks({ merchantId, after, waitMs, limit: PAGE }), {
      timeoutMs: waitMs + this.commandTimeoutMs,
    });
  }
}

/** One SSE event: the id is the cursor, the data one line of JSON (the body is a string inside it, byte for byte). */
function callbackEvent(callback: StreamedCallback): string {
  const { cursor, ...data } = callback;
  return `id: ${cursor}\nevent: callback\ndata: ${JSON.stringify(data)}\n\n`;
}
