import { describe, expect, it } from '@jest/globals';
import { flowWaitReason, parseFlowControl, targetFlowKey, withTarget } from '../../src/domain/flowControl.js';
import type { JobTarget } from '../../src/domain/job.js';

const http = (url: string): JobTarget => ({ kind: 'HTTP', url, method: 'POST', headers: [] });

describe('flow control: parsing and keys', () => {
  it("defaults the key to the URL's origin, so jobs calling one host share it, or to the handler", () => {
    expect(targetFlowKey(http('https://api.example.com/a?b=1'))).toBe('https://api.example.com');
    expect(targetFlowKey(http('http://api.example.com:8080/x'))).toBe('http://api.example.com:8080');
    expect(targetFlowKey({ kind: 'HANDLER', handler: 'report' })).toBe('handler:report');
    expect(parseFlowControl({ maxConcurrent: 2 }, http('https://api.example.com/a'))).toEqual({
      key: 'https://api.example.com',
      keyFromTarget: true,
      maxConcurrent: 2,
      maxPerMinute: null,
    });
  });

  it('keeps a given key (trimmed) whatever the target, and follows the target only when it was not given', () => {
    const given = parseFlowControl({ key: ' billing ', maxPerMinute: 30 }, http('https://a.example/'));
    expect(given).toEqual({ key: 'billing', keyFromTarget: false, maxConcurrent: null, maxPerMinute: 30 });
    expect(withTarget(given, http('https://b.example/'))).toBe(given);
    const derived = parseFlowControl({ maxConcurrent: 1 }, http('https://a.example/'));
    expect(withTarget(derived, http('https://b.example/x')).key).toBe('https://b.example');
  });

  it('refuses no limit, limits out of range or not whole, and an empty or control-character key, naming the field', () => {
    const target = http('https://a.example/');
    const field = (input: Parameters<typeof parseFlowControl>[0]) => {
      try {
        parseFlowControl(input, target);
        return null;
      } catch (error) {
        return (error as { details?: { field?: string } }).details?.field;
      }
    };
    expect(field({})).toBe('flowControl');
    expect(field({ key: 'k' })).toBe('flowControl');
    expect(field({ maxConcurrent: 0 })).toBe('flowControl.maxConcurrent');
    expect(field({ maxConcurrent: 1001 })).toBe('flowControl.maxConcurrent');
    expect(field({ maxConcurrent: 1.5 })).toBe('flowControl.maxConcurrent');
    expect(field({ maxPerMinute: 60_001 })).toBe('flowControl.maxPerMinute');
    expect(field({ key: '', maxConcurrent: 1 })).toBe('flowControl.key');
    expect(field({ key: 'a\nb', maxConcurrent: 1 })).toBe('flowControl.key');
    expect(field({ key: 'k'.repeat(201), maxConcurrent: 1 })).toBe('flowControl.key');
    expect(field({ key: 'k'.repeat(200), maxConcurrent: 1000, maxPerMinute: 60_000 })).toBeNull();
  });

  it("words the limiter's note of why an execution waits", () => {
    expect(flowWaitReason('k', 'concurrency|2|2')).toBe('waiting for flow control key "k": 2 of maxConcurrent 2 running');
    expect(flowWaitReason('k', `rate|30|30|${Date.UTC(2026, 0, 1, 12)}`)).toBe(
      'waiting for flow control key "k": 30 of maxPerMinute 30 started in the last minute; next start at 2026-01-01T12:00:00.000Z',
    );
    expect(flowWaitReason('k', null)).toBeNull();
    expect(flowWaitReason('k', 'garbage')).toBeNull();
  });
});
