import 'reflect-metadata';
import { ConfigError, loadConfig } from './config.js';
import { startKairos } from './kairos.js';
import { createLogger, errorMessage } from './logger.js';

/** Entry point of every role: `ROLES=api,scheduler,worker node dist/main.js`. */
let config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`kairos: invalid configuration: ${error.message}\n`);
    process.exit(2);
  }
  throw error;
}
// Pretty lines for a developer at a terminal; JSON whenever stderr is a pipe (log shippers, the chaos harness parse it).
const pretty = config.mode === 'development' && process.stderr.isTTY;
const destination = pretty
  ? (await import('pino-pretty')).default({ destination: 2, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service' })
  : undefined;
const logger = createLogger({ service: 'kairos' }, config.logLevel, destination);

try {
  const kairos = await startKairos({ config, logger });
  let stopping = false;
  const stopDeadlineMs = config.workerDrainMs + 15_000;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('stopping', { signal });
    // Closing waits on Redis and MongoDB; with one of them down it could wait forever.
    setTimeout(() => {
      logger.error('stop did not finish in time; exiting', { afterMs: stopDeadlineMs });
      process.exit(1);
    }, stopDeadlineMs).unref();
    kairos.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error('stop failed', { error: errorMessage(error) });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
} catch (error) {
  logger.error('kairos could not start', { error: errorMessage(error) });
  process.exit(1);
}
