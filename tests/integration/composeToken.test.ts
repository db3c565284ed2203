// Covers: src/cli/token.ts
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from '@jest/globals';
import jwt from 'jsonwebtoken';
import { parse } from 'yaml';

const run = promisify(execFile);

/**
 * The way docs/operating.md mints the first token for compose.yaml (which runs in production mode, so
 * nothing prints one): `<!-- compose-token -->`'s block. No container daemon runs here, so the
 * command is checked against compose.yaml and the Dockerfile, then run with the service's
 * environment as the container would run it.
 */
interface ComposeTokenCommand {
  service: string;
  /** The command run inside the container, e.g. `node dist/cli/token.js --tenant demo`. */
  argv: string[];
  /** The container's environment, `${JWT_SECRET...}` interpolated with the secret given. */
  env: Record<string, string>;
}

interface ComposeFile {
  services: Record<string, { build?: unknown; environment?: Record<string, string | number | boolean> }>;
}

function tokenCommand(readme: string, compose: string, dockerfile: string, secret: string): ComposeTokenCommand {
  const block = /<!-- compose-token:[^>]*-->\s*```sh\n([\s\S]*?)```/.exec(readme);
  if (!block) throw new Error('docs/operating.md has no block marked compose-token');
  const lines = block[1]
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const exported = lines.findIndex((l) => /^export JWT_SECRET=\S/.test(l));
  const up = lines.findIndex((l) => /^docker compose up\b/.test(l));
  const exec = lines.findIndex((l) => /^TOKEN=\$\(docker compose exec\b/.test(l));
  // Every docker compose command interpolates compose.yaml, which requires JWT_SECRET: set first.
  if (exported < 0 || up < exported || exec < up)
    throw new Error(`expected export JWT_SECRET, docker compose up, then TOKEN=$(docker compose exec ...): ${lines.join(' | ')}`);
  // -T: no TTY, so what $(...) captures is the token alone, without a carriage return.
  const parts = /^TOKEN=\$\(docker compose exec -T ([\w-]+) ([^()'"$`]+)\)$/.exec(lines[exec]);
  if (!parts) throw new Error(`not a plain docker compose exec -T SERVICE COMMAND: ${lines[exec]}`);
  const [, service, command] = parts;

  const file = parse(compose, { merge: true }) as ComposeFile;
  const definition = file.services[service];
  if (!definition) throw new Error(`compose.yaml has no service ${service}`);
  if (definition.build !== '.') throw new Error(`compose.yaml's ${service} does not run the Kairos image built from the Dockerfile`);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(definition.environment ?? {})) {
    env[name] = String(value).replace(/\$\{(\w+)(?::?[-?][^}]*)?\}/g, (_, variable: string) => {
      if (variable !== 'JWT_SECRET') throw new Error(`compose.yaml's ${service} needs ${variable}, which docs/operating.md does not set`);
      return secret;
    });
  }
  if (env.JWT_SECRET !== secret) throw new Error(`compose.yaml's ${service} does not take JWT_SECRET from the shell`);

  // The command runs in the final stage's WORKDIR, where dist/ is copied.
  const stages = dockerfile.split(/^FROM /m);
  const final = stages[stages.length - 1];
  if (!/^WORKDIR \/app$/m.test(final) || !/^COPY --from=\w+ \/app\/dist \.\/dist$/m.test(final)) {
    throw new Error("the Dockerfile's final stage no longer has dist/ under WORKDIR /app");
  }
  // The image's own ENV, under what compose sets.
  for (const line of final.match(/^ENV .+$/gm) ?? []) for (const [, name, value] of line.matchAll(/(\w+)=(\S+)/g)) env[name] ??= value;
  return { service, argv: command.trim().split(/\s+/), env };
}

const files = () =>
  [readFileSync('docs/operating.md', 'utf8'), readFileSync('compose.yaml', 'utf8'), readFileSync('Dockerfile', 'utf8')] as const;

describe('the compose token command of docs/operating.md', () => {
  const secret = 'compose-token-test-secret-0123456789';

  it('names a compose service that runs the Kairos image with JWT_SECRET from the shell', () => {
    const { service, argv, env } = tokenCommand(...files(), secret);
    expect(service).toBe('api');
    expect(argv.slice(0, 2)).toEqual(['node', 'dist/cli/token.js']);
    expect(env).toMatchObject({ JWT_SECRET: secret, NODE_ENV: 'production' });
  });

  it("prints a token for the tenant and role it asks, when run with the service's environment", async () => {
    const { argv, env } = tokenCommand(...files(), secret);
    const [program, ...args] = argv;
    expect(program).toBe('node');
    // Only the container's environment: no development JWT_SECRET or MONGO_URL from this shell.
    const { stdout } = await run(process.execPath, args, { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 });
    expect(stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    const claims = jwt.verify(stdout.trim(), secret, { algorithms: ['HS256'] }) as jwt.JwtPayload;
    const flag = (name: string) => args[args.indexOf(`--${name}`) + 1];
    expect(claims).toMatchObject({ tid: flag('tenant'), role: flag('role') });
    expect(claims.exp! - claims.iat!).toBe(Number(flag('hours')) * 3600);
  });

  it('refuses a page whose command drifted from compose.yaml or the Dockerfile', () => {
    const [readme, compose, dockerfile] = files();
    expect(() => tokenCommand(readme.replace('exec -T api ', 'exec -T kairos '), compose, dockerfile, secret)).toThrow('no service kairos');
    expect(() => tokenCommand(readme.replace('exec -T api ', 'exec -T mongo '), compose, dockerfile, secret)).toThrow('Kairos image');
    expect(() => tokenCommand(readme.replace('export JWT_SECRET=', 'JWT_SECRET='), compose, dockerfile, secret)).toThrow('expected export');
    expect(() => tokenCommand(readme.replace('exec -T ', 'exec '), compose, dockerfile, secret)).toThrow('exec -T');
    expect(() =>
      tokenCommand(readme, compose.replace('JWT_SECRET: ${JWT_SECRET', 'JWT_SECRET: ${KAIROS_SECRET'), dockerfile, secret),
    ).toThrow('needs KAIROS_SECRET');
    expect(() =>
      tokenCommand(readme, compose, dockerfile.replace('WORKDIR /app\nCOPY --from=deps', 'WORKDIR /srv\nCOPY --from=deps'), secret),
    ).toThrow('WORKDIR /app');
  });
});
