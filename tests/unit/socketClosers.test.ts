import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { EventEmitter } from 'node:events';
import { closeAtExpiry } from '../../src/api/closeAtExpiry.js';
import { closeWhenRevoked } from '../../src/api/closeWhenRevoked.js';

/** Just enough of a ws socket: its state, close(), and the 'close' event. */
class FakeSocket extends EventEmitter {
  readyState = 1;
  closedWith: [number, string] | null = null;
  close(code: number, reason: string): void {
    if (this.readyState !== 1) return;
    this.closedWith = [code, reason];
    this.readyState = 3;
    this.emit('close');
  }
}

const T0 = new Date('2030-01-01T00:00:00.000Z');
const clock = () => new Date(Date.now());

describe('closeAtExpiry', () => {
  beforeEach(() => {
    jest.useFakeTimers({ now: T0 });
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('closes the socket with 4401 when the validity ends, not before', () => {
    const socket = new FakeSocket();
    closeAtExpiry(socket, new Date(T0.getTime() + 2000), clock);
    jest.advanceTimersByTime(1999);
    expect(socket.closedWith).toBeNull();
    jest.advanceTimersByTime(1);
    expect(socket.closedWith).toEqual([4401, 'The token has expired']);
  });

  it('closes at once when the validity has already ended', () => {
    const socket = new FakeSocket();
    closeAtExpiry(socket, new Date(T0.getTime() - 1), clock);
    expect(socket.closedWith?.[0]).toBe(4401);
  });

  it('keeps its timer at the longest delay for an expiry Date cannot hold, instead of firing every millisecond', () => {
    const socket = new FakeSocket();
    const wakeUps = jest.spyOn(globalThis, 'setTimeout');
    closeAtExpiry(socket, new Date((1e15 + 5) * 1000), clock);
    jest.advanceTimersByTime(1000);
    expect(socket.closedWith).toBeNull();
    expect(wakeUps).toHaveBeenCalledTimes(1);
    expect(wakeUps.mock.calls[0][1]).toBe(2 ** 31 - 1);
    wakeUps.mockRestore();
    socket.close(1000, 'bye');
  });

  it('clears its timer when the socket closes first', () => {
    const socket = new FakeSocket();
    closeAtExpiry(socket, new Date(T0.getTime() + 60_000), clock);
    expect(jest.getTimerCount()).toBe(1);
    socket.close(1000, 'bye');
    expect(jest.getTimerCount()).toBe(0);
  });

  it('arms nothing for a socket that closed while its token was checked', () => {
    const socket = new FakeSocket();
    socket.readyState = 3;
    closeAtExpiry(socket, new Date(T0.getTime() + 60_000), clock);
    expect(jest.getTimerCount()).toBe(0);
    expect(socket.listenerCount('close')).toBe(0);
  });

  it('waits out validities beyond the longest timer (about 24.8 days) in several steps', () => {
    const socket = new FakeSocket();
    const days40 = 40 * 24 * 3600 * 1000;
    closeAtExpiry(socket, new Date(T0.getTime() + days40), clock);
    jest.advanceTimersByTime(2 ** 31 - 1);
    expect(socket.closedWith).toBeNull();
    jest.advanceTimersByTime(days40 - (2 ** 31 - 1) - 1);
    expect(socket.closedWith).toBeNull();
    jest.advanceTimersByTime(1);
    expect(socket.closedWith?.[0]).toBe(4401);
  });
});

describe('closeWhenRevoked', () => {
  beforeEach(() => {
    jest.useFakeTimers({ now: T0 });
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('checks every interval and closes with 4401 once the credential is no longer valid', async () => {
    const socket = new FakeSocket();
    const answers = [true, true, false];
    let checks = 0;
    closeWhenRevoked(
      socket,
      async () => answers[checks++],
      1000,
      () => undefined,
    );
    await jest.advanceTimersByTimeAsync(999);
    expect(checks).toBe(0);
    await jest.advanceTimersByTimeAsync(2001);
    expect(checks).toBe(3);
    expect(socket.closedWith).toEqual([4401, 'The API key has been revoked']);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('keeps the socket when a check fails, reports the error, and checks again later', async () => {
    const socket = new FakeSocket();
    const errors: unknown[] = [];
    let checks = 0;
    closeWhenRevoked(
      socket,
      async () => {
        checks += 1;
        if (checks === 1) throw new Error('database unreachable');
        return checks < 3;
      },
      1000,
      (error) => errors.push(error),
    );
    await jest.advanceTimersByTimeAsync(1000);
    expect(errors).toHaveLength(1);
    expect(socket.closedWith).toBeNull();
    await jest.advanceTimersByTimeAsync(2000);
    expect(socket.closedWith?.[0]).toBe(4401);
  });

  it('stops checking when the socket closes', async () => {
    const socket = new FakeSocket();
    let checks = 0;
    closeWhenRevoked(
      socket,
      async () => (checks++, true),
      1000,
      () => undefined,
    );
    await jest.advanceTimersByTimeAsync(1000);
    socket.close(1000, 'bye');
    await jest.advanceTimersByTimeAsync(5000);
    expect(checks).toBe(1);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('arms nothing for a socket already closed', () => {
    const socket = new FakeSocket();
    socket.readyState = 3;
    closeWhenRevoked(
      socket,
      async () => true,
      1000,
      () => undefined,
    );
    expect(jest.getTimerCount()).toBe(0);
  });
});
