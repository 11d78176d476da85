import { get, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { InProcessPaygate } from '@paygate/standalone';
import {
  eventually,
  mobileMoneyRequest,
  PaygateClient,
  TEST_ADMIN_TOKEN,
  type MerchantCredentials,
} from '@paygate/testing';
import { verifyCollectionSignature, verifyStandardWebhook } from '@paygate/signing';
import { startCallbackTestPaygate } from '../standalone/test-paygate';

interface StreamEvent {
  id?: string;
  event: string;
  data: string;
}

/** An open GET /v1/callbacks/stream (its own connection, closed with it): its events as they arrive. */
class OpenStream {
  readonly events: StreamEvent[] = [];
  private constructor(
    readonly status: number,
    readonly headers: IncomingHttpHeaders,
    private readonly response: IncomingMessage,
  ) {}

  static open(
    baseUrl: string,
    merchant: MerchantCredentials,
    headers: Record<string, string> = {},
  ): Promise<OpenStream> {
    return new Promise((resolve, reject) => {
      const request = get(
        `${baseUrl}/v1/callbacks/stream`,
        { headers: { 'public-key': merchant.publicKey, 'secret-key': merchant.secretKey, ...headers }, agent: false },
        (response) => {
          const stream = new OpenStream(response.statusCode ?? 0, response.headers, response);
          stream.read();
          resolve(stream);
        },
      );
      request.on('error', reject);
    });
  }

  private text = '';
  private read(): void {
    let buffer = '';
    this.response.setEncoding('utf8');
    this.response.on('data', (chunk: string) => {
      this.text += chunk;
      buffer += chunk;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event: StreamEvent = { event: 'message', data: '' };
        for (const line of block.split('\n')) {
          if (line.startsWith('id: ')) event.id = line.slice(4);
          else if (line.startsWith('event: ')) event.event = line.slice(7);
          else if (line.startsWith('data: ')) event.data = line.slice(6);
        }
        if (event.data) this.events.push(event);
      }
    });
    this.response.on('error', () => undefined);
  }

  /** The body of a refusal (the envelope). */
  async json(): Promise<unknown> {
    if (!this.response.complete) await new Promise((resolve) => this.response.once('end', resolve));
    return JSON.parse(this.text);
  }

  callbacks(): {
    id: string;
    webhook_id: string;
    event: string;
    internal_reference: string;
    body: string;
    headers: Record<string, string>;
  }[] {
    return this.events
      .filter((event) => event.event === 'callback')
      .map((event) => ({ id: event.id as string, ...JSON.parse(event.data) }));
  }

  waitForCallback(internalReference: string, event: string) {
    return eventually(
      () =>
        this.callbacks().find(
          (callback) => callback.internal_reference === internalReference && callback.event === event,
        ),
      30_000,
      `${event} of ${internalReference}`,
    );
  }

  close(): void {
    this.response.destroy();
  }
}

describe('GET /v1/callbacks/stream', () => {
  let paygate: InProcessPaygate;
  let merchant: PaygateClient;

  beforeAll(async () => {
    paygate = await startCallbackTestPaygate();
    // No callback URL: the stream carries its callbacks all the same.
    merchant = await PaygateClient.withNewMerchant(paygate.url, TEST_ADMIN_TOKEN, 'Streaming merchant');
  });

  afterAll(async () => {
    await paygate?.close();
  });

  const completed = async (client: PaygateClient) =>
    (await client.initialize(mobileMoneyRequest({ require_confirmation: false }))).body.data
      .internal_reference as string;

  it('carries each callback with its exact body and Standard Webhooks headers, for a merchant without a callback URL', async () => {
    const stream = await OpenStream.open(paygate.url, merchant.merchant);
    try {
      expect(stream.headers['content-type']).toBe('text/event-stream; charset=utf-8');
      await eventually(() => stream.events.find((event) => event.event === 'ready'), 10_000, 'the ready event');
      const ref = await completed(merchant);
      const callback = await stream.waitForCallback(ref, 'transaction.completed');
      expect(JSON.parse(callback.body)).toMatchObject({
        event: 'transaction.completed',
        payload: { internal_reference: ref, transaction_status: 'COMPLETED' },
      });
      expect(Object.keys(callback.headers).sort()).toEqual([
        'hmac-signature',
        'webhook-id',
        'webhook-signature',
        'webhook-timestamp',
      ]);
      expect(callback.headers['webhook-id']).toBe(callback.webhook_id);
      expect(verifyStandardWebhook(merchant.merchant.signingKey, callback.headers, callback.body)).toBe(true);
      const { payload } = JSON.parse(callback.body);
      expect(verifyCollectionSignature(merchant.merchant.signingKey, payload, callback.headers['hmac-signature'])).toBe(
        true,
      );
    } finally {
      stream.close();
    }
  });

  it('resumes after Last-Event-ID: what was sent while disconnected arrives on reconnect', async () => {
    const first = await OpenStream.open(paygate.url, merchant.merchant);
    const before = await completed(merchant);
    const seen = await first.waitForCallback(before, 'transaction.completed');
    first.close();
    const whileAway = await completed(merchant);
    await merchant.finalState(whileAway);
    // The callback is queued once the collection is final; wait until the dispatcher has it.
    await eventually(async () => {
      const deliveries = await fetch(`${paygate.url}/admin/v1/deliveries?internal_reference=${whileAway}`, {
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      });
      const body = (await deliveries.json()) as { data: { deliveries: { event: string }[] } };
      return body.data.deliveries.some((delivery) => delivery.event === 'transaction.completed') || undefined;
    });
    const resumed = await OpenStream.open(paygate.url, merchant.merchant, { 'last-event-id': seen.id });
    try {
      await resumed.waitForCallback(whileAway, 'transaction.completed');
      expect(resumed.callbacks().map((callback) => callback.internal_reference)).not.toContain(before);
    } finally {
      resumed.close();
    }
  });

  it("never carries another merchant's callbacks", async () => {
    const other = await PaygateClient.withNewMerchant(paygate.url, TEST_ADMIN_TOKEN, 'Other streaming merchant');
    const stream = await OpenStream.open(paygate.url, merchant.merchant);
    try {
      await eventually(() => stream.events.find((event) => event.event === 'ready'), 10_000, 'the ready event');
      const theirs = await completed(other);
      await other.finalState(theirs);
      const ours = await completed(merchant);
      await stream.waitForCallback(ours, 'transaction.completed');
      expect(stream.callbacks().filter((callback) => callback.internal_reference === theirs)).toEqual([]);
    } finally {
      stream.close();
    }
  });

  it('refuses a wrong or missing key with 401 in the envelope, without echoing it', async () => {
    const wrong = await OpenStream.open(paygate.url, { ...merchant.merchant, secretKey: 'sk_not_this_one' });
    expect(wrong.status).toBe(401);
    const body = await wrong.json();
    expect(body).toEqual({ code: 401, status: 'error', message: 'unknown public-key or wrong secret-key', data: {} });
    expect(JSON.stringify(body)).not.toContain('sk_not_this_one');
    const noSecret = await fetch(`${paygate.url}/v1/callbacks/stream`, {
      headers: { 'public-key': merchant.merchant.publicKey },
    });
    expect(noSecret.status).toBe(401);
    expect(await noSecret.json()).toEqual({
      code: 401,
      status: 'error',
      message: 'the secret-key header is required',
      data: {},
    });
  });

  it('refuses a Last-Event-ID that is not one of its event ids with 400', async () => {
    const stream = await OpenStream.open(paygate.url, merchant.merchant, { 'last-event-id': 'yesterday' });
    expect(stream.status).toBe(400);
    expect(await stream.json()).toEqual({
      code: 400,
      status: 'error',
      message: 'Last-Event-ID is not an event id of this stream',
      data: {},
    });
  });

  it('allows 5 open streams per merchant and answers the 6th 429, another merchant unaffected', async () => {
    const capped = await PaygateClient.withNewMerchant(paygate.url, TEST_ADMIN_TOKEN, 'Capped merchant');
    const open = await Promise.all(Array.from({ length: 5 }, () => OpenStream.open(paygate.url, capped.merchant)));
    const neighbour = await OpenStream.open(paygate.url, merchant.merchant);
    try {
      expect(open.map((stream) => stream.status)).toEqual([200, 200, 200, 200, 200]);
      expect(neighbour.status).toBe(200);
      const sixth = await OpenStream.open(paygate.url, capped.merchant);
      expect(sixth.status).toBe(429);
      expect(await sixth.json()).toEqual({
        code: 429,
        status: 'error',
        message: 'too many open callback streams: at most 5 per merchant; close one (paygate listen) and try again',
        data: { retry_after: 5 },
      });
      expect(sixth.headers['retry-after']).toBe('5');
      // Closing one frees its place.
      open[0].close();
      const again = await eventually(async () => {
        const stream = await OpenStream.open(paygate.url, capped.merchant);
        if (stream.status === 200) return stream;
        await stream.json();
        return undefined;
      });
      open[0] = again;
    } finally {
      for (const stream of [...open, neighbour]) stream.close();
    }
  });
});
