import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.js';
import { signDevToken } from '../auth/verifyToken.js';

/**
 * `npm run -s token -- --tenant T --role admin [--subject S] [--hours H]`: prints a development JWT
 * signed with JWT_SECRET on stdout, alone on its line, so `TOKEN=$(npm run -s token)` captures it.
 * Defaults: tenant demo, role admin, subject dev:<tenant>, 24 hours. A usage error is one line on
 * stderr and exit code 2, never a stack trace, and no token is printed.
 */
const USAGE = 'usage: npm run -s token -- [--tenant demo] [--role admin|member|viewer] [--hours 24] [--subject dev:<tenant>]\n';

function refuse(message: string): never {
  // parseArgs' messages span lines; the user gets one.
  process.stderr.write(`token: ${message.replace(/\s*\n\s*/g, ' ')} (--help for usage)\n`);
  process.exit(2);
}

let values;
try {
  ({ values } = parseArgs({
    options: {
      help: { type: 'boolean', default: false },
      tenant: { type: 'string', default: 'demo' },
      role: { type: 'string', default: 'admin' },
      subject: { type: 'string' },
      hours: { type: 'string', default: '24' },
    },
  }));
} catch (error) {
  // Unknown options, a missing value, a value that starts with a dash (`--hours -1`), extra arguments.
  refuse(error instanceof Error ? error.message : String(error));
}
if (values.help) {
  process.stderr.write(USAGE);
  process.exit(0);
}
const role = values.role.toLowerCase();
if (role !== 'admin' && role !== 'member' && role !== 'viewer') refuse(`--role must be admin, member or viewer, got "${values.role}"`);
const hours = values.hours.trim() === '' ? NaN : Number(values.hours);
const seconds = Math.round(hours * 3600);
if (!Number.isFinite(hours) || seconds < 1) refuse(`--hours must be a positive number, got "${values.hours}"`);
let jwt;
try {
  ({ jwt } = loadConfig());
} catch (error) {
  if (error instanceof ConfigError) refuse(error.message);
  throw error;
}
if (!jwt.secret) refuse('JWT_SECRET is not set: development tokens are HS256 only');
// The server refuses a token valid for longer (verifyJwt): minting one would only fail later.
if (seconds > jwt.maxTtlSeconds) {
  const most = Number((jwt.maxTtlSeconds / 3600).toFixed(2));
  refuse(`--hours ${values.hours} is longer than the server accepts: at most ${most} hours (JWT_MAX_TTL_SECONDS=${jwt.maxTtlSeconds})`);
}
process.stdout.write(
  signDevToken(jwt.secret, { tenantId: values.tenant, role, subject: values.subject, expiresInSeconds: seconds }) + '\n',
);
