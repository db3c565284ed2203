import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from '@jest/globals';
import jwt from 'jsonwebtoken';
import { TEST_JWT_SECRET } from '../support/env.js';

const run = promisify(execFile);

/** Runs the documented command, `npm run -s token -- ...`, as a user would paste it. */
async function npmToken(args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run('npm', ['run', '-s', 'token', '--', ...args], { env: { ...process.env, JWT_SECRET: TEST_JWT_SECRET }, timeout: 120_000 });
}

describe('npm run -s token', () => {
  it('prints only the token on stdout, with the tenant, role, subject and lifetime asked for', async () => {
    const before = Math.floor(Date.now() / 1000);
    const { stdout } = await npmToken(['--tenant', 'acme', '--role', 'viewer', '--hours', '2', '--subject', 'alice']);
    // Exactly one line, a JWT: what `TOKEN=$(npm run -s token ...)` captures is usable as is.
    expect(stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    const claims = jwt.verify(stdout.trim(), TEST_JWT_SECRET, { algorithms: ['HS256'] }) as jwt.JwtPayload;
    expect(claims).toMatchObject({ tid: 'acme', role: 'viewer', sub: 'alice' });
    expect(claims.exp! - claims.iat!).toBe(7200);
    expect(claims.iat!).toBeGreaterThanOrEqual(before - 1);
  });

  it('defaults to tenant demo, role admin, 24 hours', async () => {
    const { stdout } = await npmToken([]);
    const claims = jwt.verify(stdout.trim(), TEST_JWT_SECRET) as jwt.JwtPayload;
    expect(claims).toMatchObject({ tid: 'demo', role: 'admin' });
    expect(claims.exp! - claims.iat!).toBe(24 * 3600);
  });

  it('documents its options with --help on stderr, and refuses a bad role without printing a token', async () => {
    const help = await npmToken(['--help']);
    expect(help.stdout).toBe('');
    expect(help.stderr).toContain('--hours');
    expect(help.stderr).toContain('--subject');
    await expect(npmToken(['--role', 'owner'])).rejects.toMatchObject({ stdout: '', stderr: expect.stringContaining('--role must be') });
  });
});
