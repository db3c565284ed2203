import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { signDevToken } from '../auth/verifyToken.js';

/**
 * `npm run -s token -- --tenant T --role admin [--subject S] [--hours H]`: prints a development JWT
 * signed with JWT_SECRET on stdout, alone on its line, so `TOKEN=$(npm run -s token)` captures it.
 * Defaults: tenant demo, role admin, subject dev:<tenant>, 24 hours.
 */
const USAGE = 'usage: npm run -s token -- [--tenant demo] [--role admin|member|viewer] [--hours 24] [--subject dev:<tenant>]\n';
const { values } = parseArgs({
  options: {
    help: { type: 'boolean', default: false },
    tenant: { type: 'string', default: 'demo' },
    role: { type: 'string', default: 'admin' },
    subject: { type: 'string' },
    hours: { type: 'string', default: '24' },
  },
});
if (values.help) {
  process.stderr.write(USAGE);
  process.exit(0);
}
const role = values.role.toLowerCase();
if (role !== 'admin' && role !== 'member' && role !== 'viewer') {
  process.stderr.write('--role must be admin, member or viewer\n');
  process.exit(2);
}
const hours = Number(values.hours);
if (!Number.isFinite(hours) || hours <= 0) {
  process.stderr.write('--hours must be a positive number\n');
  process.exit(2);
}
const { jwt } = loadConfig();
if (!jwt.secret) {
  process.stderr.write('JWT_SECRET is not set: development tokens are HS256 only\n');
  process.exit(2);
}
process.stdout.write(
  signDevToken(jwt.secret, { tenantId: values.tenant, role, subject: values.subject, expiresInSeconds: Math.round(hours * 3600) }) + '\n',
);
