import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { ExecutionEvent, KairosClient, Viewer } from './api/client.js';

/** The bearer token lives in sessionStorage: gone when the tab closes, never in a cookie or the URL. */
const TOKEN_KEY = 'kairos.token';

export const tokenStore = {
  get: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  set: (token: string) => sessionStorage.setItem(TOKEN_KEY, token),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

/** One status change from the live feed. */
export type LiveEvent = ExecutionEvent;

/** Fans the one subscription out to the pages that are showing. */
export class LiveFeed {
  private readonly listeners = new Set<(event: LiveEvent) => void>();
  listen(listener: (event: LiveEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  emit(event: LiveEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}

export interface Session {
  client: KairosClient;
  viewer: Viewer;
  live: LiveFeed;
  /** MEMBER and ADMIN may change jobs and executions. */
  canWrite: boolean;
  isAdmin: boolean;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in page');
  return session;
}
