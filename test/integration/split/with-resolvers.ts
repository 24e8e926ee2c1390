/**
 * `Promise.withResolvers` (ES2024) for Node 20: aws-local-stepfunctions 3 calls it in every Task
 * state; Node 22 (the Lambda runtime) has it. Import this module before running a state machine.
 */
const P = Promise as unknown as {
  withResolvers?: <T>() => { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void };
};
P.withResolvers ??= <T>() => {
  let resolve!: (v: T) => void, reject!: (e: unknown) => void;
  return { promise: new Promise<T>((res, rej) => ((resolve = res), (reject = rej))), resolve, reject };
};
export {};
