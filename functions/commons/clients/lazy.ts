/**
 * A value built once per process, on first use, by an async factory: the memoized promise is shared
 * by every caller, concurrent first calls included. A failed build is forgotten, so the next call
 * tries again instead of failing forever.
 *
 * Why on first use: clients (AWS SDK, OpenSearch) are loaded with `import()` inside the factory, so
 * that a bundle with code splitting (lib/bundling.ts) neither parses nor evaluates them at start,
 * and a function that never needs one (a Delete, an unsplit report) never loads it.
 */
export function lazy<T>(build: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () =>
    (value ??= build().catch((error: unknown) => {
      value = undefined;
      throw error;
    }));
}

/**
 * How a handler receives a dependency: the process's lazily built one (a promise) by default, or a
 * ready one from a test.
 */
export type Provider<T> = () => T | Promise<T>;
