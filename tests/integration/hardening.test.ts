// Covers: src/api/formatError.ts, src/api/nestingLimits.ts, src/api/validationRules.ts, src/api/webSocketServer.ts, src/domain/nesting.ts
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import WebSocket from 'ws';
import type { Client } from 'graphql-ws';
import type { Logger } from '../../src/logger.js';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { wsClient } from '../support/subscriptions.js';

/** Findings 6, 8 and 9 of the hostile review, on a production-mode api: both transports refuse alike. */

const lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
const capture = (): Logger => {
  const logger: Logger = {
    info: (msg, fields) => void lines.push({ level: 'info', msg, fields }),
    warn: (msg, fields) => void lines.push({ level: 'warn', msg, fields }),
    error: (msg, fields) => void lines.push({ level: 'error', msg, fields }),
    child: () => logger,
  };
  return logger;
};

/** One operation over graphql-ws: its errors (or its data). */
function overSocket(client: Client, query: string, variables: Record<string, unknown> = {}): Promise<{ errors?: any[]; data?: any }> {
  return new Promise((resolve) => {
    let result: { errors?: any[]; data?: any } = {};
    client.subscribe(
      { query, variables },
      {
        next: (value) => void (result = value as typeof result),
        error: (errors) => resolve({ errors: Array.isArray(errors) ? errors : [errors] }),
        complete: () => resolve(result),
      },
    );
  });
}

async function overHttp(
  url: string,
  token: string,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<{ status: number; errors?: any[]; data?: any }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, ...((await response.json()) as object) };
}

const nested = (n: number, open: string, close: string, inner: string) => open.repeat(n) + inner + close.repeat(n);

describe('hardening on both transports (production mode)', () => {
  let k: TestKairos;
  let client: Client;
  const token = tokenFor(uniqueName('harden'), 'member');

  beforeAll(async () => {
    k = await startTestKairos('harden', { roles: ['api'], env: { KAIROS_MODE: 'production' }, logger: capture() });
    client = wsClient(k.url, token);
  });
  afterAll(async () => {
    await client?.dispose();
    await k?.stop();
  });

  it('refuses introspection and hides name suggestions over HTTP and over graphql-ws', async () => {
    for (const send of [(q: string) => overHttp(k.url, token, q), (q: string) => overSocket(client, q)]) {
      const introspection = await send('{ __schema { types { name } } }');
      expect(introspection.data?.__schema).toBeUndefined();
      expect(introspection.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(introspection.errors?.[0]?.message).toMatch(/introspection/i);
      const typo = await send('{ jobz { totalCount } }');
      expect(typo.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(typo.errors?.[0]?.message).not.toMatch(/Did you mean/);
    }
  });

  it.each([
    ['3 000 nested selections', nested(3000, '{ jobs { edges { node ', '} } }', '{ id }')],
    [
      'a list nested 4 000 deep',
      `{ previewSchedule(count: 1, schedule: { intervalSeconds: 60, timezone: ${nested(4000, '[', ']', '"UTC"')} }) { at } }`,
    ],
  ])('refuses %s with BAD_USER_INPUT before parsing, on both transports', async (_what, query) => {
    const http = await overHttp(k.url, token, query);
    expect(http.status).toBe(400);
    expect(http.errors?.[0]).toMatchObject({
      extensions: { code: 'BAD_USER_INPUT' },
      message: expect.stringMatching(/more than 100 levels deep/),
    });
    const ws = await overSocket(client, query);
    expect(ws.errors?.[0]).toMatchObject({
      extensions: { code: 'BAD_USER_INPUT' },
      message: expect.stringMatching(/more than 100 levels deep/),
    });
  });

  it('refuses a triggerJob payload nested 5 000 deep with BAD_USER_INPUT on both transports', async () => {
    // Written as text: JSON.stringify itself would overflow on such a value.
    const payload = nested(5000, '[', ']', '1');
    const query = 'mutation($id: ID!, $payload: JSON) { triggerJob(id: $id, payload: $payload) { execution { id } } }';
    const variables = `{"id":"Sm9iOjAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMA","payload":${payload}}`;
    const response = await fetch(k.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: `{"query":${JSON.stringify(query)},"variables":${variables}}`,
    });
    const http = (await response.json()) as { errors?: any[] };
    expect(http.errors?.[0]).toMatchObject({
      extensions: { code: 'BAD_USER_INPUT' },
      message: expect.stringMatching(/variables nest .* more than 100 levels/),
    });

    const socket = new WebSocket(k.url.replace(/^http/, 'ws'), 'graphql-transport-ws');
    const messages: any[] = [];
    const got = (type: string) =>
      new Promise<any>((resolve) => {
        const check = () => {
          const found = messages.find((m) => m.type === type);
          if (found) resolve(found);
          else socket.once('message', check);
        };
        check();
      });
    socket.on('message', (data) => void messages.push(JSON.parse((data as Buffer).toString())));
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } }));
    await got('connection_ack');
    socket.send(`{"type":"subscribe","id":"1","payload":{"query":${JSON.stringify(query)},"variables":${variables}}}`);
    const error = await got('error');
    socket.close();
    expect(error.payload[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' }, message: expect.stringMatching(/variables nest/) });
    expect(lines.filter((l) => l.level === 'error')).toEqual([]);
  });

  it('logs one structured line, and no stack trace, for a WebSocket frame over 1 MiB', async () => {
    const consoleError = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const before = lines.length;
    const socket = new WebSocket(k.url.replace(/^http/, 'ws'), 'graphql-transport-ws');
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    socket.send('x'.repeat(1024 * 1024 + 1));
    expect(await closed).toBe(1009);
    consoleError.mockRestore();
    expect(consoleError).not.toHaveBeenCalled();
    expect(lines.slice(before)).toEqual([
      {
        level: 'warn',
        msg: 'WebSocket frame over the size limit refused',
        fields: { code: 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH', limitBytes: 1024 * 1024 },
      },
    ]);
  });
});
