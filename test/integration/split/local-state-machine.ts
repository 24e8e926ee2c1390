import './with-resolvers';
import { ExecutionTimeoutError, StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';
import type { StartSyncExecution } from '../../../functions/commons/split/step-functions-executor';
import type { SliceEvent, SliceOutput } from '#shared/report/split/contract';
import { functionId, removeSynthOutputs, stateMachineDefinition, synthService } from '../../unit/infra/synth';

/** The split state machine as the service stack synthesizes it (bin/app.ts's way, without bundling). */
export interface SynthesizedSplit {
  readonly definition: StateMachineDefinition;
  /** Name of the Task state inside the Map's item processor. */
  readonly taskName: string;
  /** The Task's Resource, rendered as `<logical id>.Arn`, and the logical id of the slice worker. */
  readonly taskResource: string;
  readonly workerId: string;
  /** The Map state's MaxConcurrency. */
  readonly maxConcurrency: number;
}

type States = Record<
  string,
  { Type: string; Resource?: string; ItemProcessor?: { States: States }; MaxConcurrency?: number }
>;

export function synthesizeSplit(): SynthesizedSplit {
  try {
    const { template } = synthService();
    const definition = stateMachineDefinition(template) as unknown as StateMachineDefinition;
    const map = Object.values(definition.States as unknown as States).find((s) => s.Type === 'Map');
    const [taskName, task] = Object.entries(map?.ItemProcessor?.States ?? {}).find(([, s]) => s.Type === 'Task') ?? [];
    if (!taskName || !task?.Resource) throw new Error('the split state machine has no Map with a Task inside');
    const workerId = functionId(template, 'Runs one slice of a split report');
    return { definition, taskName, taskResource: task.Resource, workerId, maxConcurrency: map?.MaxConcurrency ?? 0 };
  } finally {
    removeSynthOutputs();
  }
}

/**
 * StartSyncExecution, run here by aws-local-stepfunctions: the Lambda task bound to `worker`
 * in-process. The answer has StartSyncExecution's fields; a failed task gives its error's name as
 * `error` and its message as `cause`, as the library reports them (AWS wraps the message in the
 * Lambda error envelope; the executor reads both).
 */
export function localSyncExecution(
  split: SynthesizedSplit,
  worker: (event: SliceEvent) => Promise<SliceOutput>,
): StartSyncExecution {
  // ARNs are rendered logical ids here; the task never calls AWS.
  const machine = new StateMachine(split.definition, { validationOptions: { checkArn: false } });
  return async (input) => {
    const run = machine.run(JSON.parse(input), {
      overrides: {
        taskResourceLocalHandlers: { [split.taskName]: (event) => worker(event as unknown as SliceEvent) as never },
      },
    });
    try {
      return { status: 'SUCCEEDED', output: JSON.stringify(await run.result) };
    } catch (e) {
      if (e instanceof ExecutionTimeoutError) return { status: 'TIMED_OUT' };
      const failed = ((e as Error).cause ?? e) as Error;
      return { status: 'FAILED', error: failed.name, cause: failed.message };
    }
  };
}
