/**
 * A process in the shape of Emmett's workflows: `decide(input, state)` names what to do next as
 * outputs, and `runProcess` carries them out, feeding back what came of each as the next input.
 * Every process (a collection's provider interaction, a service payment's biller interaction)
 * speaks this one output vocabulary, so the services and the specs run them with this one loop.
 */

/** What a process asks for. */
export type ProcessOutput<Command, Call> =
  /** Decide a command on its stream; what it recorded (or its refusal) is the next input. */
  | { type: 'Execute'; command: Command }
  /** Ask something outside (a provider, a biller); its answer, or its failure, is the next input. */
  | { type: 'Call'; call: Call }
  /** The run ends; a timer behind it is finished with. `note` says, for the log, why nothing more was done. */
  | { type: 'Done'; note?: string }
  /** The run ends; the timer behind it fires again at `at` (ISO 8601). */
  | { type: 'RetryAt'; at: string; note?: string }
  /** The run ends with the command that started it refused (what it recorded stays recorded). */
  | { type: 'Reject'; code: string; message: string; details?: Record<string, unknown> }
  /** The run ends with `error` (a call's failure): whoever started the run retries it. */
  | { type: 'Fail'; error: unknown };

export type RunEnd = Extract<ProcessOutput<unknown, unknown>, { type: 'Done' | 'RetryAt' }>;

export interface Process<Input, State, Command, Call> {
  decide(input: Input, state: State): ProcessOutput<Command, Call>[];
  /** What the run remembers of an input (a call's answer needed again after a command), before deciding on it. */
  evolve?(state: State, input: Input): State;
}

/** How a service carries a process's outputs out: its streams, its connectors, its errors. */
export interface ProcessEffects<Input, State, Command, Call> {
  /** Decides `command`; the state after it, and the input that says what it recorded or why it was refused. */
  execute(command: Command, state: State): Promise<{ state: State; input: Input; refused?: boolean }>;
  /** Makes the call; its answer or failure as an input. */
  call(call: Call, state: State): Promise<Input>;
  /** The error a Reject output ends the run with. */
  rejection(output: Extract<ProcessOutput<Command, Call>, { type: 'Reject' }>): Error;
}

/** A run should end in a handful of steps; one that does not is a process bug, stopped here. */
const MAX_STEPS = 32;

/**
 * Runs `process` from `input` until an output ends the run. The outputs of one decision are
 * carried out in order, each one's outcome becoming the next input; a call's answer or a refused
 * command is decided on at once (the outputs after it are not carried out).
 */
export async function runProcess<Input, State, Command, Call>(
  process: Process<Input, State, Command, Call>,
  first: Input,
  start: State,
  effects: ProcessEffects<Input, State, Command, Call>,
): Promise<{ state: State; end: RunEnd }> {
  let input = first;
  let state = start;
  for (let step = 0; step < MAX_STEPS; step++) {
    if (process.evolve) state = process.evolve(state, input);
    const outputs = process.decide(input, state);
    if (outputs.length === 0) throw new Error('a process decided nothing: every decision names what comes next');
    for (const output of outputs) {
      switch (output.type) {
        case 'Execute': {
          const executed = await effects.execute(output.command, state);
          ({ state, input } = executed);
          if (executed.refused) break;
          continue;
        }
        case 'Call':
          input = await effects.call(output.call, state);
          break;
        case 'Done':
        case 'RetryAt':
          return { state, end: output };
        case 'Reject':
          throw effects.rejection(output);
        case 'Fail':
          throw output.error;
      }
      break;
    }
  }
  throw new Error(`a process run did not end within ${MAX_STEPS} steps`);
}
