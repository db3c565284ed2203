// `node scripts/with-kairos.mjs CMD ARGS...`: runs CMD against a Kairos of its own, then cleans up.
// Starts `node dist/main.js` (all roles, built by scripts/install.sh) on a free port with its own
// database and Redis prefix and ALLOW_PRIVATE_TARGETS=true, mints an admin token for a fresh tenant,
// runs CMD with KAIROS_URL, KAIROS_TOKEN and KAIROS_TENANT set, stops Kairos (SIGTERM), drops the
// database and Redis keys, and exits with CMD's exit code. MONGO_URL, REDIS_URL and JWT_SECRET come
// from the environment (scripts/dev-env.sh). The server's log goes to .data/with-kairos-<name>.log.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { MongoClient } from 'mongodb';
import { Redis } from 'ioredis';
import { spawnKairos } from '../dist/tools/servers/kairosProcess.js';
import { dropRedisPrefix } from '../dist/tools/servers/dropRedisPrefix.js';

const command = process.argv.slice(2);
if (command.length === 0) {
  process.stderr.write('usage: node scripts/with-kairos.mjs CMD [ARGS...]\n');
  process.exit(2);
}
const mongoUrl = process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017/kairos';
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const name = `kt_sdk_${randomBytes(4).toString('hex')}`;
const dbMongoUrl = mongoUrl.replace(/^(mongodb(?:\+srv)?:\/\/[^/?]+)\/?[^?]*/, `$1/${name}`);
const tenant = `sdk-${randomBytes(3).toString('hex')}`;
mkdirSync('.data', { recursive: true });

const env = {
  MONGO_URL: dbMongoUrl,
  REDIS_URL: redisUrl,
  REDIS_PREFIX: name,
  PORT: '0',
  ALLOW_PRIVATE_TARGETS: 'true',
  KAIROS_MODE: 'development',
  ...(process.env.JWT_SECRET ? { JWT_SECRET: process.env.JWT_SECRET } : {}),
  ...(process.env.JWT_PUBLIC_KEY ? { JWT_PUBLIC_KEY: process.env.JWT_PUBLIC_KEY } : {}),
};
const kairos = await spawnKairos(env, { logFile: `.data/with-kairos-${name}.log`, startTimeoutMs: 60_000 });
let code;
try {
  const url = kairos.url;
  if (!url) throw new Error('Kairos started without an api URL');
  const token = execFileSync(process.execPath, ['dist/cli/token.js', '--tenant', tenant, '--role', 'admin', '--hours', '2'], {
    env: { ...process.env, ...env },
  })
    .toString()
    .trim();
  process.stderr.write(`with-kairos: ${url} (database and Redis prefix ${name}, tenant ${tenant})\n`);
  const [cmd, ...args] = command;
  const child = spawn(cmd, args, {
    stdio: 'inherit',
    env: { ...process.env, KAIROS_URL: url, KAIROS_TOKEN: token, KAIROS_TENANT: tenant },
  });
  code = await new Promise((resolve) => child.once('exit', (status, signal) => resolve(status ?? (signal ? 1 : 0))));
} finally {
  const exited = new Promise((resolve) => kairos.child.once('exit', resolve));
  kairos.child.kill('SIGTERM');
  const timer = setTimeout(() => kairos.child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
  await dropState();
}
process.exit(code);

async function dropState() {
  const mongo = new MongoClient(dbMongoUrl);
  const redis = new Redis(redisUrl);
  try {
    await mongo.db(name).dropDatabase();
    await dropRedisPrefix(redis, name);
  } finally {
    await mongo.close();
    redis.disconnect();
  }
}
