import WebSocket from 'ws';

/** A graphql-transport-ws message as the server sends it. */
export interface ServerMessage {
  type: string;
  id?: string;
  payload?: any;
}

/**
 * A graphql-ws connection spoken by hand, for tests that need to see exactly what the server
 * answers to each message (an ack or a close code at connection_init, an error for one subscribe).
 */
export class RawSocket {
  readonly messages: ServerMessage[] = [];
  /** Resolves with the close code and reason once the socket has closed, from either side. */
  readonly closed: Promise<{ code: number; reason: string }>;
  private waiters: (() => void)[] = [];

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data) => {
      // ws hands text frames over as a Buffer (its default binaryType).
      this.messages.push(JSON.parse((data as Buffer).toString()) as ServerMessage);
      this.notify();
    });
    this.closed = new Promise((resolve) =>
      socket.once('close', (code, reason) => {
        resolve({ code, reason: reason.toString() });
        this.notify();
      }),
    );
  }

  /** Opens a socket to a test server and sends connection_init with the token; resolves with the ack, or the close when it is refused. */
  static async connect(httpUrl: string, token: string): Promise<{ socket: RawSocket; acked: boolean; code?: number; reason?: string }> {
    const ws = new WebSocket(httpUrl.replace(/^http/, 'ws'), 'graphql-transport-ws');
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const socket = new RawSocket(ws);
    ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } }));
    const outcome = await Promise.race([
      socket.waitFor((m) => m.some((x) => x.type === 'connection_ack'), 10_000).then(() => null),
      socket.closed,
    ]);
    return outcome ? { socket, acked: false, ...outcome } : { socket, acked: true };
  }

  get open(): boolean {
    return this.socket.readyState === WebSocket.OPEN;
  }

  subscribe(id: string, query: string, variables: Record<string, unknown> = {}): void {
    this.socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query, variables } }));
  }

  complete(id: string): void {
    this.socket.send(JSON.stringify({ id, type: 'complete' }));
  }

  /** The messages of operation `id`. */
  of(id: string): ServerMessage[] {
    return this.messages.filter((m) => m.id === id);
  }

  /** Resolves when `predicate(messages)` holds; rejects after `timeoutMs` or when the socket closed first. */
  async waitFor(predicate: (messages: ServerMessage[]) => boolean, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (predicate(this.messages)) return;
      if (this.socket.readyState === WebSocket.CLOSED)
        throw new Error(`socket closed; messages: ${JSON.stringify(this.messages).slice(0, 1000)}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out after ${timeoutMs} ms; messages: ${JSON.stringify(this.messages).slice(0, 1000)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Closes the socket and waits until it has closed. */
  async close(): Promise<void> {
    if (this.socket.readyState !== WebSocket.CLOSED) this.socket.close(1000);
    await this.closed;
  }

  private notify(): void {
    for (const wake of this.waiters.splice(0)) wake();
  }
}
