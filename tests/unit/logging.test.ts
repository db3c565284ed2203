import { describe, expect, it } from '@jest/globals';
import { AuthFailureLog } from '../../src/auth/authFailureLog.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { newApiKeySecret } from '../../src/apiKeys/apiKeySecret.js';
import { signDevToken } from '../../src/auth/verifyToken.js';
import { createLogger, REDACTED, scrubSecrets } from '../../src/logger.js';

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
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      ['warn', 'shown'],
      ['error', 'also shown'],
    ]);
    expect(lines[0]).toMatchObject({ service: 't', jobId: 'j1' });
    expect(lines[1]).toMatchObject({ service: 't', role: 'worker' });
    const silent = captured('silent');
    silent.logger.error('nothing');
    expect(silent.lines).toEqual([]);
  });
});

describe('what the logger keeps out of its lines', () => {
  const jwt = signDevToken(SECRET, { tenantId: 't1', role: 'admin' });
  const apiKey = newApiKeySecret();

  it('writes time (ISO), level as a word, msg and the base fields', () => {
    const { logger, lines } = captured('info');
    logger.info('hello', { n: 1 });
    expect(lines).toEqual([
      { time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/), level: 'info', msg: 'hello', service: 't', n: 1 },
    ]);
  });

  it('redacts secret keys at the top level, in nested objects and deeper, in fields and child bindings', () => {
    const { logger, lines } = captured('info');
    logger.warn('request', {
      token: 'a1',
      secret: 'a2',
      apiKey: 'a3',
      webhookSecret: 'a4',
      password: 'a5',
      headers: { authorization: 'Bearer a6', Authorization: 'Basic a7', 'x-api-key': 'a8' },
      req: { headers: { authorization: 'a9' } },
      deep: { er: { still: { password: 'a10', keep: 'visible' } } },
      tenant: { previousWebhookSecret: 'a12' },
    });
    logger.child({ webhookSecret: 'a11', tenantId: 't1' }).info('bound');
    const text = JSON.stringify(lines);
    for (let i = 1; i <= 12; i++) expect(text).not.toContain(`"a${i}"`);
    expect(lines[0]).toMatchObject({
      token: REDACTED,
      headers: { authorization: REDACTED, Authorization: REDACTED, 'x-api-key': REDACTED },
      req: { headers: { authorization: REDACTED } },
    });
    expect(lines[0].deep).toEqual({ er: { still: { password: REDACTED, keep: 'visible' } } });
    expect(lines[1]).toMatchObject({ msg: 'bound', tenantId: 't1', webhookSecret: REDACTED });
  });

  it('scrubs JWTs, API keys and bearer credentials inside messages and error strings, leaving other text', () => {
    const { logger, lines } = captured('info');
    logger.error(`refused ${jwt}`, {
      error: `upstream said: invalid key ${apiKey}`,
      errors: [`Bearer opaque-credential`],
      at: 'api.example.com v1.2.3',
    });
    logger.child({ note: `key ${apiKey.slice(0, 20)}` }).warn('x');
    const text = JSON.stringify(lines);
    expect(text).not.toContain(jwt);
    expect(text).not.toContain(apiKey.slice(0, 20));
    expect(text).not.toContain('opaque-credential');
    expect(lines[0]).toMatchObject({
      msg: `refused ${REDACTED}`,
      error: `upstream said: invalid key ${REDACTED}`,
      errors: [`Bearer ${REDACTED}`],
      at: 'api.example.com v1.2.3',
    });
    // A DNS error lower-cases a host name made of a token.
    expect(scrubSecrets(`getaddrinfo ENOTFOUND ${jwt.toLowerCase()}`)).toBe(`getaddrinfo ENOTFOUND ${REDACTED}`);
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
