// Covers: src/cli/token.ts
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from '@jest/globals';
import jwt from 'jsonwebtoken';
import { TEST_JWT_SECRET } from '../support/env.js';

const run = promisify(execFile);

/** Runs the documented command, `npm run -s token -- ...`, as a user would paste it. */
async function npmToken(args: string[], env: Record<string, string> = {}): Promise<{ stdout: string; stderr: string }> {
  return run('npm', ['run', '-s', 'token', '--', ...args], {
    env: { ...process.env, JWT_SECRET: TEST_JWT_SECRET, ...env },
    timeout: 120_000,
  });
}

/** What a refused command left: its exit code, stdout and stderr. */
async function refusal(args: string[], env: Record<string, string> = {}): Promise<{ code: unknown; stdout: string; stderr: string }> {
  const error = await npmToken(args, env).then(
    () => null,
    (e: { code: unknown; stdout: string; stderr: string }) => e,
  );
  if (!error) throw new Error(`npm run -s token -- ${args.join(' ')} printed a token`);
  return { code: error.code, stdout: error.stdout, stderr: error.stderr };
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

  it.each([
    [['--hours', '-1'], /--hours/],
    [['--hours=-1'], /--hours must be a positive number, got "-1"/],
    [['--hours', 'soon'], /--hours must be a positive number, got "soon"/],
    [['--hours'], /--hours/],
    [['--tenat', 'acme'], /Unknown option '--tenat'/],
    [['acme'], /Unexpected argument 'acme'/],
  ])('refuses %j in one line on stderr with exit code 2, without a stack trace or a token', async (args, message) => {
    const { code, stdout, stderr } = await refusal(args);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^token: [^\n]+\n$/);
    expect(stderr).toMatch(message);
  });

  it('refuses a lifetime the server would refuse, naming its limit (JWT_MAX_TTL_SECONDS, 30 days by default)', async () => {
    const over = await refusal(['--hours', '960']);
    expect(over).toMatchObject({ code: 2, stdout: '' });
    expect(over.stderr).toMatch(/^token: --hours 960 is longer than the server accepts: at most 720 hours \(JWT_MAX_TTL_SECONDS=2592000\)/);
    const lowered = await refusal(['--hours', '2'], { JWT_MAX_TTL_SECONDS: '3600' });
    expect(lowered.stderr).toMatch(/at most 1 hours \(JWT_MAX_TTL_SECONDS=3600\)/);
    // The limit itself is accepted.
    const { stdout } = await npmToken(['--hours', '720']);
    const claims = jwt.verify(stdout.trim(), TEST_JWT_SECRET) as jwt.JwtPayload;
    expect(claims.exp! - claims.iat!).toBe(2_592_000);
  });
});
