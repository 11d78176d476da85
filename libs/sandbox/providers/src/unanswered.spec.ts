/**
 * A request the sandbox never answers: the connection is dropped without a response once the hold is over, the
 * caller has gone, or the server drains for a shutdown, whichever comes first, so a held request never holds up a
 * shutdown.
 */
import { EventEmitter } from 'node:events';
import type { FastifyReply } from 'fastify';
import type { Background } from './background';
import { leaveUnanswered } from './unanswered';

/** A reply whose connection the test watches; `sleep` resolves only when the test says (the hold being over). */
function held() {
  const raw = Object.assign(new EventEmitter(), { destroy: jest.fn() });
  const reply = { raw, hijack: jest.fn() } as unknown as FastifyReply;
  let holdOver!: () => void;
  const background = { sleep: () => new Promise<void>((resolve) => (holdOver = resolve)) } as unknown as Background;
  return { raw, reply, background, holdOver: () => holdOver() };
}

it('drops the connection without an answer once the hold is over', async () => {
  const { raw, reply, background, holdOver } = held();
  const leaving = leaveUnanswered(reply, background, 15_000, new AbortController().signal);
  expect(reply.hijack).toHaveBeenCalled();
  expect(raw.destroy).not.toHaveBeenCalled();
  holdOver();
  await leaving;
  expect(raw.destroy).toHaveBeenCalledTimes(1);
});

it('stops holding when the caller gives up', async () => {
  const { raw, reply, background } = held();
  const leaving = leaveUnanswered(reply, background, 15_000, new AbortController().signal);
  raw.emit('close');
  await leaving;
  expect(raw.destroy).toHaveBeenCalledTimes(1);
});

it('stops holding when the server drains, and holds nothing once it is draining', async () => {
  const { raw, reply, background } = held();
  const draining = new AbortController();
  const leaving = leaveUnanswered(reply, background, 15_000, draining.signal);
  draining.abort();
  await leaving;
  expect(raw.destroy).toHaveBeenCalledTimes(1);

  const late = held();
  await leaveUnanswered(late.reply, late.background, 15_000, draining.signal);
  expect(late.raw.destroy).toHaveBeenCalledTimes(1);
});
