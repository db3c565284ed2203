import { describe, expect, it } from '@jest/globals';
import { signature, signatureV2, type SignedRequest } from '../../src/workers/targets/webhookSignature.js';

const SECRET = 'whsec_test_secret';
/** 2025-03-01T12:00:00Z is 1740830400 s; the fraction is dropped from `t`. */
const NOW = new Date('2025-03-01T12:00:00.750Z');
/** The global id Kairos sends in X-Kairos-Execution-Id: base64url of "Execution:65f0a1b2c3d4e5f601234567". */
const EXECUTION_ID = 'RXhlY3V0aW9uOjY1ZjBhMWIyYzNkNGU1ZjYwMTIzNDU2Nw';
const POST: SignedRequest = {
  executionId: EXECUTION_ID,
  method: 'POST',
  url: 'https://hooks.example.com/kairos?tenant=a',
  body: '{"hello":"world"}',
};

describe('webhook signatures', () => {
  it('v2 matches an HMAC computed independently over "v2\\n<t>\\n<execution id>\\n<METHOD>\\n<url>\\n<body>"', () => {
    // printf 'v2\n1740830400\nRXhlY3V0aW9uOjY1ZjBhMWIyYzNkNGU1ZjYwMTIzNDU2Nw\nPOST\nhttps://hooks.example.com/kairos?tenant=a\n{"hello":"world"}' \
    //   | openssl dgst -sha256 -hmac whsec_test_secret
    expect(signatureV2(SECRET, POST, NOW)).toBe('t=1740830400,v2=13003e91464601658a3e785df63fca434d1e8555911965b012222e67cae90607');
    // The same with GET and the empty body it is sent with (the string ends in the newline after the URL).
    expect(signatureV2(SECRET, { ...POST, method: 'GET', body: '' }, NOW)).toBe(
      't=1740830400,v2=3ef98a8205e0c798c100798fc0c0f880ee98c342064a7538059683d316b7ff55',
    );
  });

  it('v1 is unchanged, so receivers that verify it keep working during the transition', () => {
    // printf '1740830400.{"hello":"world"}' | openssl dgst -sha256 -hmac whsec_test_secret
    expect(signature(SECRET, '{"hello":"world"}', NOW)).toBe(
      't=1740830400,v1=46bd09f864508b84997b6c6125a03e5bb457ea18bfdc4bd04f750388abb4dddb',
    );
    // printf '1740830400.' | openssl dgst -sha256 -hmac whsec_test_secret
    expect(signature(SECRET, '', NOW)).toBe('t=1740830400,v1=fe1909b1fabe789de078e4c7b9eb21b1e25222fcf389e37eb96a539a22a78e06');
  });

  it('a replay under another execution id, method or URL has another v2 signature, where v1 stays the same', () => {
    const original = signatureV2(SECRET, POST, NOW);
    const replays: SignedRequest[] = [
      { ...POST, executionId: 'RXhlY3V0aW9uOjY1ZjBhMWIyYzNkNGU1ZjYwMTIzNDU2OA' },
      { ...POST, method: 'PUT' },
      { ...POST, url: 'https://hooks.example.com/kairos?tenant=b' },
    ];
    for (const replay of replays) {
      expect(signatureV2(SECRET, replay, NOW)).not.toBe(original);
      // v1 covers only the timestamp and the body, which the replays keep: this is the gap v2 closes.
      expect(signature(SECRET, replay.body, NOW)).toBe(signature(SECRET, POST.body, NOW));
    }
  });

  it('during a grace carries one signature per secret after one timestamp, the newest first', () => {
    // printf 'v2\n1740830400\nRXhlY3V0aW9uOjY1ZjBhMWIyYzNkNGU1ZjYwMTIzNDU2Nw\nPOST\nhttps://hooks.example.com/kairos?tenant=a\n{"hello":"world"}' \
    //   | openssl dgst -sha256 -hmac whsec_previous_secret
    const previous = 'whsec_previous_secret';
    const newV2 = '13003e91464601658a3e785df63fca434d1e8555911965b012222e67cae90607';
    const previousV2 = 'a35a3a0d06412b04b60db21fa54aa6ac98e3230c1e4daaed609693087d85f33d';
    expect(signatureV2([SECRET, previous], POST, NOW)).toBe(`t=1740830400,v2=${newV2},v2=${previousV2}`);
    // One secret in a list gives exactly the header one secret gives.
    expect(signatureV2([SECRET], POST, NOW)).toBe(`t=1740830400,v2=${newV2}`);
    // printf '1740830400.{"hello":"world"}' | openssl dgst -sha256 -hmac whsec_previous_secret
    expect(signature([SECRET, previous], '{"hello":"world"}', NOW)).toBe(
      't=1740830400,v1=46bd09f864508b84997b6c6125a03e5bb457ea18bfdc4bd04f750388abb4dddb,v1=d4e1d1aef443516476e848fbd5ecb16754a664c0a3b6a7a137aff60f9319e79b',
    );
    expect(() => signatureV2([], POST, NOW)).toThrow('at least one secret');
  });
});
