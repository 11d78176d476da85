import { runProcess, type Decider, type Process, type ProcessEffects, type ProcessOutput } from '@paygate/decider';

/** A process run as the process specs read it: every output the process decided, in order, and the state it left. */
export interface RecordedRun<State, Command, Call> {
  outputs: ProcessOutput<Command, Call>[];
  state: State;
}

class RunRejected extends Error {}

/**
 * Runs `process` from `first` with libs/decider's runProcess, the loop the services run it with,
 * recording every output it decides. A run that ends with Reject or Fail ends here as its outputs
 * say; any other error (a scripted answer missing, a command the decider refuses) is the spec's.
 */
export async function recordRun<Input, State, Command, Call>(
  process: Process<Input, State, Command, Call>,
  first: NoInfer<Input>,
  start: NoInfer<State>,
  effects: NoInfer<Omit<ProcessEffects<Input, State, Command, Call>, 'rejection'>>,
): Promise<RecordedRun<State, Command, Call>> {
  const outputs: ProcessOutput<Command, Call>[] = [];
  let state = start;
  const recording: Process<Input, State, Command, Call> = {
    evolve: process.evolve,
    decide(input, current) {
      const decided = process.decide(input, current);
      outputs.push(...decided);
      return decided;
    },
  };
  const execute: typeof effects.execute = async (command, current) => {
    const executed = await effects.execute(command, current);
    state = executed.state;
    return executed;
  };
  try {
    ({ state } = await runProcess(recording, first, start, {
      ...effects,
      execute,
      rejection: ({ message }) => new RunRejected(message),
    }));
  } catch (error) {
    const failed = outputs.some((output) => output.type === 'Fail' && output.error === error);
    if (!(error instanceof RunRejected) && !failed) throw error;
  }
  return { outputs, state };
}

/**
 * A run's outline: each output by its type, a command or a call with its own type ('Execute Confirm', 'Call LookUpPrn',
 * 'Done').
 */
export function outline(outputs: ProcessOutput<{ type: string }, { type: string }>[]): string[] {
  return outputs.map((output) => {
    if (output.type === 'Execute') return `Execute ${output.command.type}`;
    return output.type === 'Call' ? `Call ${output.call.type}` : output.type;
  });
}

/**
 * The events `commands` record, decided one after another from the decider's initial state: the history a process spec
 * is given.
 */
export function decidedEvents<Command, Event, State>(
  decider: Decider<Command, Event, State>,
  commands: Command[],
): Event[] {
  const events: Event[] = [];
  commands.reduce((state, command) => {
    const decided = decider.decide(command, state);
    events.push(...decided);
    return decided.reduce(decider.evolve, state);
  }, decider.initialState);
  return events;
}
