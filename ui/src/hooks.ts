import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { asKairosError, type KairosError, type TypedDocument } from './api/client.js';
import { useSession, type LiveEvent } from './session.js';

/** The current hash route, e.g. "/jobs/abc" for "#/jobs/abc". */
export function useRoute(): string {
  const read = () => location.hash.replace(/^#/, '') || '/jobs';
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const onChange = () => setRoute(read());
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

export function navigate(route: string): void {
  location.hash = `#${route}`;
}

export interface Loaded<T> {
  data: T | null;
  error: KairosError | null;
  loading: boolean;
  reload: () => void;
}

/**
 * Runs the typed `document` with `variables` (re-run when their JSON changes) and keeps the last
 * answer while reloading; sends nothing while `enabled` is false.
 */
export function useQuery<TResult, TVariables>(document: TypedDocument<TResult, TVariables>, variables: TVariables, enabled = true): Loaded<TResult> {
  const { client } = useSession();
  const [state, setState] = useState<{ data: TResult | null; error: KairosError | null; loading: boolean }>({ data: null, error: null, loading: true });
  const [generation, setGeneration] = useState(0);
  const key = JSON.stringify(variables);
  useEffect(() => {
    if (!enabled) return;
    let current = true;
    setState((s) => ({ ...s, loading: true }));
    client.request(document, variables).then(
      (data) => current && setState({ data, error: null, loading: false }),
      (error: unknown) => current && setState((s) => ({ data: s.data, error: asKairosError(error), loading: false })),
    );
    return () => {
      current = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [document, key, generation, enabled]);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  return { ...state, reload };
}

/** Calls `listener` for every live event while the component is shown. */
export function useLive(listener: (event: LiveEvent) => void): void {
  const { live } = useSession();
  const latest = useRef(listener);
  latest.current = listener;
  useEffect(() => live.listen((event) => latest.current(event)), [live]);
}

/** Re-renders every `ms` so relative times ("in 5 s") stay true; returns the current time. */
export function useNow(ms = 1000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}

/** `value`, but only after it has stopped changing for `ms`. */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/** Runs a mutation: tracks busy state and the error, calls `onDone` with its answer. */
export function useAction<A extends unknown[], T>(run: (...args: A) => Promise<T>, onDone?: (result: T) => void) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<KairosError | null>(null);
  const perform = async (...args: A) => {
    setBusy(true);
    setError(null);
    try {
      const result = await run(...args);
      onDone?.(result);
      return result;
    } catch (e) {
      setError(asKairosError(e));
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { perform, busy, error, clearError: () => setError(null) };
}
