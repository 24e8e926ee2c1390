/**
 * The work waiting on each signal, behind the one listener that signal has. A report's deadline and
 * the DuckDB engine's shutdown are shared by every slice and every search running at once; a
 * listener each would pass Node's limit of 10 per EventTarget (MaxListenersExceededWarning) as soon
 * as more than a few ran together.
 */
const waiting = new WeakMap<AbortSignal, { readonly fns: Set<() => void>; readonly listener: () => void }>();

/**
 * Calls `fn` once when `signal` aborts (at once if it has already), through a single listener per
 * signal however many callers wait on it. Returns what forgets `fn`: call it when the work ends; the
 * last one to forget takes the listener off the signal.
 */
export function onAbort(signal: AbortSignal, fn: () => void): () => void {
  if (signal.aborted) {
    fn();
    return () => undefined;
  }
  let entry = waiting.get(signal);
  if (!entry) {
    const fns = new Set<() => void>();
    const listener = (): void => {
      waiting.delete(signal);
      for (const f of fns) f();
    };
    entry = { fns, listener };
    waiting.set(signal, entry);
    signal.addEventListener('abort', listener, { once: true });
  }
  // A wrapper of its own, so that the same function registered twice is forgotten once each.
  const once = (): void => fn();
  entry.fns.add(once);
  const { fns, listener } = entry;
  return () => {
    if (!fns.delete(once) || fns.size > 0 || waiting.get(signal)?.fns !== fns) return;
    waiting.delete(signal);
    signal.removeEventListener('abort', listener);
  };
}
