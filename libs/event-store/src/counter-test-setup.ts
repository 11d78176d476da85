/**
 * A counter that never goes above its limit: the decider the runtime specs run
 * (decider-runtime.*.spec.ts), small enough to show every path of the runtime.
 */
import type { StreamDecider } from '@paygate/decider';

export type CounterCommand = { type: 'Add'; amount: number } | { type: 'Open'; limit: number };
export type CounterEvent = { type: 'Opened'; data: { limit: number } } | { type: 'Added'; data: { amount: number } };
export type Counter = { limit: number; total: number } | null;

export class LimitExceeded extends Error {}

export const counter: StreamDecider<CounterCommand, CounterEvent, Counter> = {
  initialState: null,
  streamName: (id) => `counter-${id}`,
  schemaVersion: 2,
  decide(command, state) {
    if (command.type === 'Open') return state ? [] : [{ type: 'Opened', data: { limit: command.limit } }];
    if (!state) throw new Error('no such counter');
    if (state.total + command.amount > state.limit) throw new LimitExceeded(`total would pass ${state.limit}`);
    return command.amount === 0 ? [] : [{ type: 'Added', data: { amount: command.amount } }];
  },
  evolve(state, event) {
    if (event.type === 'Opened') return { limit: event.data.limit, total: 0 };
    return state && { ...state, total: state.total + event.data.amount };
  },
  read({ type, data, schemaVersion }) {
    if (type !== 'Opened' && type !== 'Added') return undefined;
    if (schemaVersion === 1 && type === 'Added') return { type, data: { amount: Number(data.value) } }; // an older shape, upcast
    const event: { type: string; data: object } = { type, data };
    return event as CounterEvent;
  },
  publish(events, after) {
    return events.some((event) => event.type === 'Added') && after?.total === after?.limit
      ? [{ type: 'counters.CounterFull', version: 1, data: { total: after?.total } }]
      : [];
  },
};
