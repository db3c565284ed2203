import { errorMessage, type Logger } from '../logger.js';

/** Closes one thing this process opened. */
export type Closer = () => Promise<unknown>;

/**
 * Everything one process opened, closed in the reverse order of opening: a role stops before the
 * connections it uses, the connections before the tracer that exports their last spans. Whoever
 * opens a thing registers its closer here right away (before awaiting its start when a failed start
 * leaves it retrying), so a start that fails half way closes what it had opened.
 */
export class Closers {
  private readonly closers: Closer[];

  private stopping: Promise<void> | null = null;

  constructor(
    private readonly logger: Logger,
    first: Closer[] = [],
  ) {
    this.closers = [...first];
  }

  add(close: Closer): void {
    this.closers.push(close);
  }

  /** Once: a second call waits for the first instead of closing everything again. A closer's failure is logged, the others still run. */
  stop(): Promise<void> {
    return (this.stopping ??= (async () => {
      // A reversed copy: a closer registered while stopping must not shift the ones still to run.
      for (const close of [...this.closers].reverse()) {
        await close().catch((error: unknown) => this.logger.warn('error while stopping', { error: errorMessage(error) }));
      }
    })());
  }
}
