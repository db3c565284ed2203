// Covers: src/domain/jobLimits.ts
import { describe, expect, it } from '@jest/globals';
import type { HttpHeader } from '../../src/domain/job.js';
import { BadUserInputError } from '../../src/errors/index.js';
import {
  parseName,
  parseNewJob,
  parsePayload,
  parseTarget,
  parseTimeout,
  type JobInputFields,
  type TargetInputFields,
} from '../../src/jobs/parseJobInput.js';

const NOW = new Date('2025-03-01T12:00:00.000Z');
const HANDLERS: ReadonlySet<string> = new Set(['noop', 'sleep']);
const URL_OK = 'https://hooks.example.com/run';

/** Runs `fn`, expects a BadUserInputError, and returns it. */
function badInput(fn: () => unknown): BadUserInputError {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(BadUserInputError);
  const error = caught as BadUserInputError;
  expect(error.code).toBe('BAD_USER_INPUT');
  return error;
}

const target = (input: TargetInputFields | null | undefined) => parseTarget(input, HANDLERS);
const http = (extra: Partial<NonNullable<TargetInputFields['http']>> = {}): TargetInputFields => ({
  http: { url: URL_OK, ...extra },
});
const headers = (...list: [string, string][]): TargetInputFields => http({ headers: list.map(([name, value]) => ({ name, value })) });

describe('parseNewJob', () => {
  const minimal: JobInputFields = {
    name: 'nightly report',
    schedule: { intervalSeconds: 300 },
    target: { http: { url: URL_OK } },
  };

  it('fills the defaults: POST, no headers, IO_BOUND, ALLOW, RUN_ONCE, 60 s timeout, default retries', () => {
    expect(parseNewJob(minimal, NOW, HANDLERS)).toEqual({
      flowControl: null,
      labelPairs: [],
      externalId: null,
      name: 'nightly report',
      description: null,
      schedule: { kind: 'INTERVAL', intervalSeconds: 300, timezone: 'UTC', jitterSeconds: 0 },
      target: { kind: 'HTTP', url: URL_OK, method: 'POST', headers: [] },
      payloadJson: null,
      workload: 'IO_BOUND',
      timeoutSeconds: 60,
      retryPolicy: { maxAttempts: 3, initialBackoffSeconds: 1, maxBackoffSeconds: 300, backoffMultiplier: 2 },
      overlapPolicy: 'ALLOW',
      misfirePolicy: 'RUN_ONCE',
    });
  });

  it('keeps explicit choices', () => {
    const job = parseNewJob(
      {
        ...minimal,
        name: '  billing  ',
        description: 'charges cards',
        target: { handler: 'sleep' },
        payload: { ms: 5 },
        workload: 'CPU_BOUND',
        timeoutSeconds: 120,
        overlapPolicy: 'SKIP',
        misfirePolicy: 'SKIP',
      },
      NOW,
      HANDLERS,
    );
    expect(job.name).toBe('billing');
    expect(job.description).toBe('charges cards');
    expect(job.target).toEqual({ kind: 'HANDLER', handler: 'sleep' });
    expect(job.payloadJson).toBe('{"ms":5}');
    expect(job.workload).toBe('CPU_BOUND');
    expect(job.timeoutSeconds).toBe(120);
    expect(job.overlapPolicy).toBe('SKIP');
    expect(job.misfirePolicy).toBe('SKIP');
  });

  it('requires a schedule', () => {
    const error = badInput(() => parseNewJob({ ...minimal, schedule: null }, NOW, HANDLERS));
    expect(error.message).toBe('schedule is required');
    expect(error.details).toEqual({ field: 'schedule' });
  });

  it('names the offending field of a nested input', () => {
    const error = badInput(() => parseNewJob({ ...minimal, target: { http: { url: 'ftp://x.example/' } } }, NOW, HANDLERS));
    expect(error.details).toEqual({ field: 'target.http.url' });
  });
});

describe('name', () => {
  it('is trimmed', () => {
    expect(parseName('  nightly \t\n')).toBe('nightly');
    expect(parseName('a b')).toBe('a b');
  });

  it.each([[''], ['   '], ['\t\n'], [null], [undefined]])('must not be empty (%j)', (name) => {
    const error = badInput(() => parseName(name));
    expect(error.message).toBe('name must not be empty');
    expect(error.details).toEqual({ field: 'name' });
  });

  it('is at most 200 characters once trimmed', () => {
    expect(parseName('x'.repeat(200))).toHaveLength(200);
    expect(parseName(`  ${'x'.repeat(200)}  `)).toHaveLength(200);
    const error = badInput(() => parseName('x'.repeat(201)));
    expect(error.message).toBe('name must be at most 200 characters');
    expect(error.details).toEqual({ field: 'name' });
  });
});

describe('payload', () => {
  it('is absent when null or undefined', () => {
    expect(parsePayload(null)).toBeNull();
    expect(parsePayload(undefined)).toBeNull();
  });

  it('is stored as JSON text', () => {
    expect(parsePayload({ a: [1, 'two', null], b: { c: true } })).toBe('{"a":[1,"two",null],"b":{"c":true}}');
    expect(parsePayload('text')).toBe('"text"');
    expect(parsePayload(0)).toBe('0');
    expect(parsePayload(false)).toBe('false');
  });

  it('keeps operator-like keys ($where, dotted) as inert JSON text', () => {
    const payload = { $where: 'sleep(1000)', 'a.b': 1, nested: { $gt: '' } };
    const json = parsePayload(payload);
    expect(json).toBe('{"$where":"sleep(1000)","a.b":1,"nested":{"$gt":""}}');
    expect(typeof json).toBe('string');
    const job = parseNewJob({ name: 'n', schedule: { intervalSeconds: 60 }, target: { handler: 'noop' }, payload }, NOW, HANDLERS);
    expect(job.payloadJson).toBe('{"$where":"sleep(1000)","a.b":1,"nested":{"$gt":""}}');
  });

  it('may be exactly 256 KiB of JSON', () => {
    // A JSON string adds two quote characters: 262142 + 2 = 262144 bytes = 256 KiB.
    expect(parsePayload('a'.repeat(262_142))).toHaveLength(262_144);
  });

  it('is rejected over 256 KiB of JSON', () => {
    const error = badInput(() => parsePayload('a'.repeat(262_143)));
    expect(error.message).toBe('payload must be at most 256 KiB of JSON');
    expect(error.details).toEqual({ field: 'payload' });
  });

  it('is measured in UTF-8 bytes, not characters', () => {
    // "é" is 2 bytes: 131071 * 2 + 2 = 262144 bytes (fits); 131072 * 2 + 2 = 262146 bytes (too big, only 131074 characters).
    expect(parsePayload('é'.repeat(131_071))).toHaveLength(131_073);
    badInput(() => parsePayload('é'.repeat(131_072)));
  });

  it('is rejected through parseNewJob too', () => {
    const error = badInput(() =>
      parseNewJob(
        { name: 'n', schedule: { intervalSeconds: 60 }, target: { handler: 'noop' }, payload: { blob: 'x'.repeat(300_000) } },
        NOW,
        HANDLERS,
      ),
    );
    expect(error.details).toEqual({ field: 'payload' });
  });
});

describe('target', () => {
  it('accepts a registered handler', () => {
    expect(target({ handler: 'noop' })).toEqual({ kind: 'HANDLER', handler: 'noop' });
  });

  it('accepts an http target and normalises its URL', () => {
    expect(target({ http: { url: 'HTTPS://Hooks.Example.com:443/a?b=1' } })).toEqual({
      kind: 'HTTP',
      url: 'https://hooks.example.com/a?b=1',
      method: 'POST',
      headers: [],
    });
    expect(target({ http: { url: 'http://8.8.4.4:8080/x', method: 'GET', headers: [] } })).toEqual({
      kind: 'HTTP',
      url: 'http://8.8.4.4:8080/x',
      method: 'GET',
      headers: [],
    });
  });

  it.each([
    ['loopback', 'http://127.0.0.1:9000/hook', '127.0.0.1'],
    ['private', 'http://10.0.0.5:8080/x', '10.0.0.5'],
    ['cloud metadata', 'http://169.254.169.254/latest/meta-data', '169.254.169.254'],
    ['IPv6 loopback', 'http://[::1]:8080/', '::1'],
    ['IPv4-mapped IPv6', 'http://[::ffff:192.168.1.1]/', '::ffff:c0a8:101'],
  ])('refuses a %s literal address unless ALLOW_PRIVATE_TARGETS, naming the setting', (_label, url, host) => {
    const error = badInput(() => target({ http: { url } }));
    expect(error.message).toContain(host);
    expect(error.message).toContain('ALLOW_PRIVATE_TARGETS=true');
    expect(error.details).toEqual({ field: 'target.http.url' });
    expect(parseTarget({ http: { url } }, HANDLERS, true)).toMatchObject({ kind: 'HTTP' });
  });

  it('leaves host names to the connect-time check: what they resolve to may change', () => {
    expect(target({ http: { url: 'http://localhost:9000/hook' } })).toMatchObject({ kind: 'HTTP', url: 'http://localhost:9000/hook' });
  });

  it.each([
    ['both', { http: { url: URL_OK }, handler: 'noop' }],
    ['neither (empty object)', {}],
    ['neither (both null)', { http: null, handler: null }],
    ['neither (no target)', null],
  ])('needs exactly one of http or handler: %s', (_label, input) => {
    const error = badInput(() => target(input));
    expect(error.message).toBe('target needs exactly one of http or handler');
    expect(error.details).toEqual({ field: 'target' });
  });

  it('rejects an unknown handler and lists the known ones', () => {
    const error = badInput(() => target({ handler: 'rm-rf' }));
    expect(error.message).toBe('target.handler "rm-rf" is not registered; known handlers: noop, sleep');
    expect(error.details).toEqual({ field: 'target.handler' });
  });

  it('does not echo an unknown handler name longer than 100 characters in full', () => {
    const error = badInput(() => target({ handler: 'h'.repeat(5000) }));
    expect(error.message).toContain(`"${'h'.repeat(100)}"`);
    expect(error.message).not.toContain('h'.repeat(101));
  });

  it.each([
    ['ftp:', 'ftp://files.example.com/x'],
    ['javascript:', 'javascript:alert(1)'],
    ['file:', 'file:///etc/passwd'],
    ['data:', 'data:text/plain,hi'],
    ['ws:', 'ws://example.com/socket'],
  ])('rejects a %s URL', (_scheme, url) => {
    const error = badInput(() => target({ http: { url } }));
    expect(error.message).toBe('target.http.url must use http or https');
    expect(error.details).toEqual({ field: 'target.http.url' });
  });

  it.each([['not a url'], ['/relative/path'], ['example.com/run'], ['https://'], ['http://exa mple.com/'], ['']])(
    'rejects the malformed URL %j',
    (url) => {
      const error = badInput(() => target({ http: { url } }));
      expect(error.message).toBe('target.http.url is not a valid absolute URL');
      expect(error.details).toEqual({ field: 'target.http.url' });
    },
  );

  it.each([['https://user:pass@hooks.example.com/'], ['https://user@hooks.example.com/'], ['http://:pass@hooks.example.com/']])(
    'rejects credentials in the URL (%s)',
    (url) => {
      const error = badInput(() => target({ http: { url } }));
      expect(error.message).toBe('target.http.url must not contain credentials; use a header instead');
    },
  );

  it('rejects a URL over 2048 characters', () => {
    const base = 'https://hooks.example.com/';
    expect(target({ http: { url: base + 'a'.repeat(2048 - base.length) } }).kind).toBe('HTTP');
    const error = badInput(() => target({ http: { url: base + 'a'.repeat(2049 - base.length) } }));
    expect(error.message).toBe('target.http.url must be at most 2048 characters');
  });
});

describe('target headers', () => {
  it('keeps valid headers in order', () => {
    const result = target(headers(['Authorization', 'Bearer abc'], ['X-Tenant-Ref', 'a: b, c'], ['Accept', '']));
    expect(result).toEqual({
      kind: 'HTTP',
      url: URL_OK,
      method: 'POST',
      headers: [
        { name: 'Authorization', value: 'Bearer abc' },
        { name: 'X-Tenant-Ref', value: 'a: b, c' },
        { name: 'Accept', value: '' },
      ],
    });
  });

  it.each([
    ['Idempotency-Key'],
    ['idempotency-key'],
    ['X-Kairos-Foo'],
    ['x-kairos-signature'],
    ['X-KAIROS-ATTEMPT'],
    ['Content-Type'],
    ['Content-Length'],
    ['Host'],
    ['Transfer-Encoding'],
    ['Connection'],
  ])('rejects the reserved header %s', (name) => {
    const error = badInput(() => target(headers([name, 'v'])));
    expect(error.message).toBe(`header ${name} is set by Kairos and cannot be overridden`);
    expect(error.details).toEqual({ field: 'target.http.headers' });
  });

  it('allows a header that only starts like a reserved one', () => {
    expect(target(headers(['X-Kairos', 'v'], ['Hostname', 'h'], ['Idempotency-Key-2', 'k'])).kind).toBe('HTTP');
  });

  it.each([
    ['CR LF', 'ok\r\nX-Injected: 1'],
    ['LF', 'ok\nX-Injected: 1'],
    ['CR', 'ok\rmore'],
    ['NUL', 'ok\0'],
    ['a character outside Latin-1', 'done ✓'],
  ])('rejects a header value with %s', (_label, value) => {
    const error = badInput(() => target(headers(['X-Custom', value])));
    expect(error.message).toBe(
      'header X-Custom has an invalid value (printable Latin-1 characters only, no line breaks, at most 4096 characters)',
    );
    expect(error.details).toEqual({ field: 'target.http.headers' });
  });

  it('rejects a header value over 4096 characters', () => {
    expect(target(headers(['X-Big', 'v'.repeat(4096)])).kind).toBe('HTTP');
    badInput(() => target(headers(['X-Big', 'v'.repeat(4097)])));
  });

  it.each([['Bad Header'], ['X-Colon:'], [''], ['Ümlaut'], ['h'.repeat(129)]])('rejects the header name %j', (name) => {
    const error = badInput(() => target(headers([name, 'v'])));
    expect(error.message).toMatch(/is not a valid HTTP header name$/);
    expect(error.details).toEqual({ field: 'target.http.headers' });
  });

  it('allows 32 headers and rejects 33', () => {
    const list = (n: number): HttpHeader[] => Array.from({ length: n }, (_, i) => ({ name: `X-H${i}`, value: String(i) }));
    const ok = target(http({ headers: list(32) }));
    expect(ok.kind === 'HTTP' && ok.headers.length).toBe(32);
    const error = badInput(() => target(http({ headers: list(33) })));
    expect(error.message).toBe('target.http.headers may have at most 32 entries');
    expect(error.details).toEqual({ field: 'target.http.headers' });
  });
});

describe('timeoutSeconds', () => {
  it('defaults to 60', () => {
    expect(parseTimeout(null)).toBe(60);
    expect(parseTimeout(undefined)).toBe(60);
  });

  it('accepts 1 second to 24 hours', () => {
    expect(parseTimeout(1)).toBe(1);
    expect(parseTimeout(86_400)).toBe(86_400);
  });

  it.each([[0], [-1], [86_401], [1.5], [Number.NaN], [Number.POSITIVE_INFINITY]])('rejects %p', (value) => {
    const error = badInput(() => parseTimeout(value));
    expect(error.message).toBe('timeoutSeconds must be an integer between 1 and 86400');
    expect(error.details).toEqual({ field: 'timeoutSeconds' });
  });

  it('is rejected through parseNewJob too', () => {
    const error = badInput(() =>
      parseNewJob({ name: 'n', schedule: { intervalSeconds: 60 }, target: { handler: 'noop' }, timeoutSeconds: 0 }, NOW, HANDLERS),
    );
    expect(error.details).toEqual({ field: 'timeoutSeconds' });
  });
});
