/**
 * A stand-in for one export of a Node built-in module that loads the module on first use instead of
 * at import. The Lambda bundles alias a few built-ins to modules made of these (lib/bundling.ts,
 * LAZY_BUILTINS): libraries import them at the top, but most invocations never call them.
 *
 * The stand-in is a Proxy over a function, so it behaves as the real export wherever the export is a
 * function or a class: calls, `new`, static members, `instanceof` and `extends` all reach the real
 * one, which `process.getBuiltinModule` loads once (Node ≥ 20.16 and 22.3; built-ins are cached).
 */
export function lazyExport<T extends object>(moduleId: string, name: string): T {
  let real: T | undefined;
  const load = (): T => {
    if (real) return real;
    const module = process.getBuiltinModule(moduleId) as Record<string, unknown> | undefined;
    const value = module?.[name];
    if (typeof value !== 'function') throw new TypeError(`${moduleId} has no function or class named ${name}`);
    return (real = value as T);
  };
  const target = function lazyBuiltinExport() {} as unknown as T;
  return new Proxy(target, {
    apply: (_target, thisArg, args) => Reflect.apply(load() as (...a: unknown[]) => unknown, thisArg, args),
    construct: (_target, args, newTarget) =>
      Reflect.construct(load() as new (...a: unknown[]) => object, args, newTarget),
    get: (_target, key) => Reflect.get(load(), key),
    has: (_target, key) => Reflect.has(load(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(load()),
  });
}
