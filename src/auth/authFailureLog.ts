import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';

/**
 * Logs refused credentials, one warn line each, at most `maxPerWindow` lines per window so a client
 * retrying a bad token (or an attacker) cannot flood the log; the next window's first line says how
 * many were left out. Lines carry the reason (which check failed), never the token.
 */
export class AuthFailureLog {
  private windowStart = Number.NEGATIVE_INFINITY;
  private written = 0;
  private suppressed = 0;

  constructor(
    private readonly logger: Logger,
    private readonly clock: Clock,
    private readonly maxPerWindow = 10,
    private readonly windowMs = 60_000,
  ) {}

  record(fields: { code: string; reason: string }): void {
    const now = this.clock().getTime();
    if (now - this.windowStart >= this.windowMs) {
      if (this.suppressed > 0)
        this.logger.warn('authentication failures left out of the log', { count: this.suppressed, windowMs: this.windowMs });
      this.windowStart = now;
      this.written = 0;
      this.suppressed = 0;
    }
    if (this.written >= this.maxPerWindow) {
      this.suppressed++;
      return;
    }
    this.written++;
    this.logger.warn('authentication failed', fields);
  }
}
