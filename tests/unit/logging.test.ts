import { describe, expect, it } from '@jest/globals';
import { AuthFailureLog } from '../../src/api/authFailureLog.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';

const SECRET = 'a-secret-of-32-characters-length';

function captured(level: Parameters<typeof createLogger>[1]) {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ service: 't' }, level, (line) => lines.push(JSON.parse(line)));
  return { logger, lines };
}

describe('LOG_LEVEL and the logger', () => {
  it('reads LOG_LEVEL (default info) and refuses an unknown level, naming the variable', () => {
    expect(loadConfig({ JWT_SECRET: SECRET }).logLevel).toBe('info');
    expect(loadConfig({ JWT_SECRET: SECRET, LOG_LEVEL: 'WARN' }).logLevel).toBe('warn');
    expect(loadConfig({ JWT_SECRET: SECRET, LOG_LEVEL: 'silent' }).logLevel).toBe('silent');
    expect(() => loadConfig({ JWT_SECRET: SECRET, LOG_LEVEL: 'loud' })).toThrow(ConfigError);
    expect(() => loadConfig({ JWT_SECRET: SECRET, LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
  });

  it('writes one JSON line per event at or above its level, children included', () => {
    const { logger, lines } = captured('warn');
    logger.info('hidden');
    logger.warn('shown', { jobId: 'j1' });
    logger.child({ role: 'worker' }).error('also shown');
    expect(lines.map((l) => [l.level, l.msg])).toEqual([['warn', 'shown'], ['error', 'also shown']]);
    expect(lines[0]).toMatchObject({ service: 't', jobId: 'j1' });
    expect(lines[1]).toMatchObject({ service: 't', role: 'worker' });
    const silent = captured('silent');
    silent.logger.error('nothing');
    expect(silent.lines).toEqual([]);
  });
});

describe('AuthFailureLog', () => {
  it('logs each refused credential up to the limit per window, then says how many it left out', () => {
    const { logger, lines } = captured('info');
    let now = Date.UTC(2026, 0, 1);
    const log = new AuthFailureLog(logger, () => new Date(now), 3, 60_000);
    for (let i = 0; i < 10; i++) log.record({ code: 'UNAUTHENTICATED', reason: `r${i}` });
    expect(lines.map((l) => l.reason)).toEqual(['r0', 'r1', 'r2']);
    expect(lines[0]).toMatchObject({ level: 'warn', msg: 'authentication failed', code: 'UNAUTHENTICATED' });
    now += 59_999;
    log.record({ code: 'UNAUTHENTICATED', reason: 'still in the window' });
    expect(lines).toHaveLength(3);
    now += 1;
    log.record({ code: 'UNAUTHENTICATED', reason: 'next window' });
    expect(lines.slice(3)).toEqual([
      expect.objectContaining({ msg: 'authentication failures left out of the log', count: 8, windowMs: 60_000 }),
      expect.objectContaining({ msg: 'authentication failed', reason: 'next window' }),
    ]);
  });
});
