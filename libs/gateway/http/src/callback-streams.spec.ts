/**
 * The open callback streams of one gateway (CallbackStreams): a merchant's cap, the slot a closed
 * stream gives back, and a shutdown that ends every stream at once so clients reconnect elsewhere.
 */
import { HttpException } from '@nestjs/common';
import type { Drain } from '@paygate/platform';
import { CallbackStreams, MAX_STREAMS_PER_MERCHANT } from './callback-stream.controller';

/** The drain's one hook CallbackStreams uses: `begin` runs what it registered, as a shutdown does. */
function shutdownSignal() {
  const listeners: (() => void)[] = [];
  const drain = { onBegin: (listener: () => void) => void listeners.push(listener) } as unknown as Drain;
  return { drain, begin: () => listeners.forEach((listener) => listener()) };
}

const refusal = (take: () => unknown) => {
  try {
    take();
  } catch (error) {
    return error as HttpException;
  }
  throw new Error('the stream was let open');
};

describe('callback streams', () => {
  it('refuses one stream over the cap with 429 and when to retry; another merchant still opens', () => {
    const streams = new CallbackStreams(shutdownSignal().drain);
    for (let i = 0; i < MAX_STREAMS_PER_MERCHANT; i++) streams.take('mer_a', () => undefined);
    const refused = refusal(() => streams.take('mer_a', () => undefined));
    expect(refused.getStatus()).toBe(429);
    expect(refused.getResponse()).toMatchObject({ data: { retry_after: 5 } });
    expect(() => streams.take('mer_b', () => undefined)).not.toThrow();
  });

  it('gives a closed stream’s slot back, once however often it is released', () => {
    const streams = new CallbackStreams(shutdownSignal().drain);
    const releases = Array.from({ length: MAX_STREAMS_PER_MERCHANT }, () => streams.take('mer_a', () => undefined));
    releases[0]();
    releases[0]();
    expect(() => streams.take('mer_a', () => undefined)).not.toThrow();
    expect(refusal(() => streams.take('mer_a', () => undefined)).getStatus()).toBe(429);
  });

  it('ends every open stream when the gateway begins to drain, and refuses new ones with 503', () => {
    const { drain, begin } = shutdownSignal();
    const streams = new CallbackStreams(drain);
    const ended: string[] = [];
    streams.take('mer_a', () => ended.push('a1'));
    const releaseA2 = streams.take('mer_a', () => ended.push('a2'));
    streams.take('mer_b', () => ended.push('b1'));
    releaseA2();
    begin();
    expect(ended.sort()).toEqual(['a1', 'b1']);
    const refused = refusal(() => streams.take('mer_c', () => undefined));
    expect(refused.getStatus()).toBe(503);
    expect(refused.message).toBe('the gateway is shutting down; reconnect');
  });

  it('ends every open stream when the module is destroyed, so the server need not wait for them', () => {
    const streams = new CallbackStreams(shutdownSignal().drain);
    const ended: string[] = [];
    streams.take('mer_a', () => ended.push('a'));
    streams.take('mer_b', () => ended.push('b'));
    streams.onModuleDestroy();
    expect(ended.sort()).toEqual(['a', 'b']);
  });
});
