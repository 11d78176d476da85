import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { eventually } from '@paygate/testing';
import { body, KEY, senderHarness } from './callback-sender-test-setup';

describe('CallbackSender on kept-alive connections', () => {
  const { receiver, sender } = senderHarness();

  it('sends two callbacks to one receiver over one connection', async () => {
    const endpoint = await receiver();
    const callbacks = sender();

    const first = await callbacks.send({ webhookId: 'msg_1', targetUrl: endpoint.url(), body }, KEY);
    // The pool hears the connection is free on the next turn of the event loop (a callback sent in the same turn
    // would open another, up to perHostConcurrency); the worker's next attempt is always later than that.
    await nextTurn();
    const second = await callbacks.send({ webhookId: 'msg_2', targetUrl: endpoint.url(), body }, KEY);

    expect([first.statusCode, second.statusCode]).toEqual([200, 200]);
    expect(endpoint.received.map((request) => request.headers['webhook-id'])).toEqual(['msg_1', 'msg_2']);
    expect(endpoint.connections()).toBe(1);
  });

  it('delivers the next callback after the receiver closed the idle connection', async () => {
    const endpoint = await receiver(undefined, (server) => (server.keepAliveTimeout = 100));
    const callbacks = sender();

    expect((await callbacks.send({ webhookId: 'msg_3', targetUrl: endpoint.url(), body }, KEY)).statusCode).toBe(200);
    await sleep(300);
    const next = await callbacks.send({ webhookId: 'msg_4', targetUrl: endpoint.url(), body }, KEY);

    expect(next.error).toBeUndefined();
    expect(next.statusCode).toBe(200);
    expect(endpoint.connections()).toBe(2);
  });

  it('keeps the connection after a long answer, and closes that of a receiver that keeps sending', async () => {
    const long = await receiver((response) => response.end('x'.repeat(20_000)));
    const callbacks = sender();

    const first = await callbacks.send({ webhookId: 'msg_5', targetUrl: long.url(), body }, KEY);
    await sleep(50);
    const second = await callbacks.send({ webhookId: 'msg_6', targetUrl: long.url(), body }, KEY);

    expect([first.responseExcerpt, second.responseExcerpt]).toEqual(['x'.repeat(1_024), 'x'.repeat(1_024)]);
    expect(long.connections()).toBe(1);

    const endless = await receiver((response) => {
      response.writeHead(200);
      const more = setInterval(() => response.write('x'.repeat(512)), 2);
      response.on('close', () => clearInterval(more));
    });
    const outcome = await callbacks.send({ webhookId: 'msg_7', targetUrl: endless.url(), body }, KEY);

    expect(outcome).toMatchObject({ statusCode: 200, responseExcerpt: 'x'.repeat(1_024) });
    await eventually(() => (endless.openConnections() === 0 ? true : undefined), 5_000, 'the connection closed');
    expect((await callbacks.send({ webhookId: 'msg_8', targetUrl: endless.url(), body }, KEY)).statusCode).toBe(200);
  });

  it('closes its idle connections when it is closed', async () => {
    const endpoint = await receiver();
    const callbacks = sender();
    await callbacks.send({ webhookId: 'msg_9', targetUrl: endpoint.url(), body }, KEY);
    expect(endpoint.openConnections()).toBe(1);

    await callbacks.close();

    await eventually(() => (endpoint.openConnections() === 0 ? true : undefined), 5_000, 'the connection closed');
  });
});
