import { Command, CommanderError, Option } from 'commander';
import { KairosClient, KairosError, type BulkOperation, type CreateJobInput, type ExecutionFilter, type Execution, type ExecutionStatus, type Job, type JobStatus, type UpdateJobInput } from '@kairos/client';
import { configPath, readConfig, writeConfig } from './config.js';
import { executionDetails, executionRow, jobDetails, jobRow } from './describe.js';
import { CliError, EXIT, exitCodeOf } from './exitCodes.js';
import { details, printJson, table, type Output } from './output.js';

const EXECUTION_STATUSES = ['SCHEDULED', 'QUEUED', 'RUNNING', 'RETRYING', 'SUCCEEDED', 'FAILED', 'CANCELLED', 'SKIPPED'];
const JOB_STATUSES = ['ACTIVE', 'PAUSED', 'COMPLETED'];

/** `executions retry|cancel` with a filter instead of an id: a bulk operation. */
interface BulkOptions {
  job?: string;
  status?: ExecutionStatus[];
  finishedAfter?: string;
  finishedBefore?: string;
  operationId?: string;
  wait?: boolean;
}

/** The filter of a bulk retry or cancel; null when none of its options was given. */
function bulkFilter(options: BulkOptions): ExecutionFilter | null {
  if (!options.job && !options.status && !options.finishedAfter && !options.finishedBefore) return null;
  return { jobId: options.job, statuses: options.status, finishedAfter: options.finishedAfter, finishedBefore: options.finishedBefore };
}

/** What `executions retry|cancel` prints of a bulk operation. */
function bulkDetails(op: BulkOperation): Record<string, unknown> {
  return {
    id: op.id,
    operationId: op.operationId,
    kind: op.kind,
    status: op.status,
    reason: op.reason,
    total: op.total,
    done: op.done,
    failed: op.failed,
    createdAt: op.createdAt,
    finishedAt: op.finishedAt,
    errors: op.errors.map((e) => `${e.executionId}: ${e.message}`).join('; '),
  };
}

interface GlobalOptions {
  url?: string;
  token?: string;
  json?: boolean;
}

/** Runs the CLI on `argv` (process.argv shape) and resolves to its exit code. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const output: Output = { json: argv.includes('--json'), out: (text) => process.stdout.write(text) };
  const program = buildProgram(output, env);
  try {
    await program.parseAsync(argv);
    return EXIT.OK;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end parsing with an "error" of exit code 0; commander has printed the rest.
      return error.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
    }
    reportError(output, error);
    return exitCodeOf(error);
  }
}

function reportError(output: Output, error: unknown): void {
  const code = error instanceof KairosError ? error.code : error instanceof CliError ? 'CLI_ERROR' : 'UNEXPECTED';
  const message = error instanceof Error ? error.message : String(error);
  if (output.json) process.stderr.write(JSON.stringify({ error: { code, message, ...(error instanceof KairosError ? { details: error.details } : {}) } }) + '\n');
  else process.stderr.write(`kairos: ${code === 'CLI_ERROR' ? '' : `${code}: `}${message}\n`);
}

function buildProgram(output: Output, env: NodeJS.ProcessEnv): Command {
  const program = new Command('kairos')
    .description('The Kairos job scheduler from the command line.\nCredentials: `kairos login`, or KAIROS_URL with KAIROS_TOKEN or KAIROS_API_KEY.')
    .version('0.1.0')
    .option('--url <url>', 'GraphQL endpoint (overrides the login and KAIROS_URL)')
    .option('--token <token>', 'JWT or API key (overrides the login and KAIROS_TOKEN)')
    .option('--json', 'machine-readable output: JSON documents, one JSON line per watched event')
    .addHelpText('after', `\nExit codes: 0 ok, 1 unexpected, 2 usage, 3 unauthenticated, 4 forbidden, 5 not found, 6 bad input,\n7 quota exceeded, 8 rate limited, 9 conflict, 10 Kairos unreachable, 11 server error.\nConfig file: ${configPath(env)}`)
    .showHelpAfterError()
    .exitOverride();
  program.configureHelp({ showGlobalOptions: true });

  const client = (): KairosClient => {
    const globals = program.opts<GlobalOptions>();
    const stored = readConfig(configPath(env));
    const url = globals.url ?? env.KAIROS_URL ?? stored?.url;
    const token = globals.token ?? env.KAIROS_TOKEN ?? env.KAIROS_API_KEY ?? stored?.token ?? stored?.apiKey;
    if (!url || !token) throw new CliError('not logged in: run `kairos login --url URL --token TOKEN` (or set KAIROS_URL and KAIROS_TOKEN)', EXIT.UNAUTHENTICATED);
    return new KairosClient({ url, token });
  };
  const show = (value: unknown, text: () => string) => (output.json ? printJson(output, value) : output.out(text()));

  program
    .command('login')
    .description('check --url and --token (or --api-key) against Kairos and store them in the config file (mode 0600)')
    .option('--api-key <key>', 'an API key (kairos_...) instead of --token')
    .addHelpText('after', '\nExample: kairos login --url http://127.0.0.1:4000/graphql --token "$TOKEN"')
    .action(async (options: { apiKey?: string }) => {
      const { url, token } = program.opts<GlobalOptions>();
      if (!url || (!token && !options.apiKey)) throw new CliError('login needs --url and --token or --api-key', EXIT.USAGE);
      if (token && options.apiKey) throw new CliError('give --token or --api-key, not both', EXIT.USAGE);
      const viewer = await new KairosClient({ url, token: token ?? options.apiKey }).viewer();
      const path = configPath(env);
      writeConfig(path, { url, ...(token ? { token } : { apiKey: options.apiKey }) });
      show({ ...viewer, configPath: path }, () => `Logged in to ${url} as ${viewer.subject} (tenant ${viewer.tenantId}, ${viewer.role}); saved to ${path}\n`);
    });

  const jobs = program.command('jobs').description('list, inspect, create and change jobs');
  jobs
    .command('ls')
    .description('list jobs, newest first')
    .addOption(new Option('--status <status...>', 'only jobs in these statuses').choices(JOB_STATUSES))
    .option('--name-prefix <prefix>', 'only jobs whose name starts with this (case-insensitive)')
    .option('--limit <n>', 'at most this many', positiveInt, 50)
    .action(async (options: { status?: JobStatus[]; namePrefix?: string; limit: number }) => {
      const found: Job[] = [];
      for await (const job of client().jobsAll({ statuses: options.status, namePrefix: options.namePrefix, pageSize: Math.min(100, options.limit) })) {
        found.push(job);
        if (found.length >= options.limit) break;
      }
      show(found, () => table(found.map(jobRow), ['id', 'name', 'status', 'schedule', 'target', 'next run']));
    });
  jobs
    .command('get <id>')
    .description('show one job')
    .action(async (id: string) => {
      const job = await client().job(id);
      if (!job) throw new KairosError('NOT_FOUND', `Job ${id} was not found`);
      show(job, () => details(jobDetails(job)));
    });
  withJobOptions(jobs.command('create').description('create a job').requiredOption('--name <name>', 'job name'))
    .option('--paused', 'create it PAUSED')
    .option('--idempotency-key <key>', 'creating again with the same key returns the first job')
    .action(async (options: JobFlags & { name: string; paused?: boolean; idempotencyKey?: string }) => {
      const input = jobInput(options);
      if (!input.schedule) throw new CliError('create needs a schedule: --cron EXPR [--tz ZONE], --every SECONDS or --at ISO-TIME', EXIT.USAGE);
      if (!input.target) throw new CliError('create needs a target: --handler NAME or --http-url URL', EXIT.USAGE);
      const job = await client().createJob({ ...input, name: options.name, paused: options.paused, idempotencyKey: options.idempotencyKey } as CreateJobInput);
      show(job, () => details(jobDetails(job)));
    });
  withJobOptions(jobs.command('update <id>').description('change a job; options not given keep their value').option('--name <name>', 'new name'))
    .action(async (id: string, options: JobFlags & { name?: string }) => {
      const job = await client().updateJob({ id, ...jobInput(options), name: options.name } as UpdateJobInput);
      show(job, () => details(jobDetails(job)));
    });
  for (const [name, description] of [
    ['pause', 'stop new occurrences and cancel pending ones'],
    ['resume', 'pick the schedule up again from now'],
  ] as const) {
    jobs
      .command(`${name} <id>`)
      .description(description)
      .action(async (id: string) => {
        const job = name === 'pause' ? await client().pauseJob(id) : await client().resumeJob(id);
        show(job, () => table([jobRow(job)], ['id', 'name', 'status', 'schedule', 'target', 'next run']));
      });
  }
  jobs
    .command('trigger <id>')
    .description('run a job now, outside its schedule')
    .option('--payload <json>', "this run's payload instead of the job's", parseJson)
    .action(async (id: string, options: { payload?: unknown }) => {
      const execution = await client().triggerJob(id, options.payload);
      show(execution, () => table([executionRow(execution)], EXECUTION_COLUMNS));
    });
  jobs
    .command('backfill <id>')
    .description("create a job's past occurrences in [from, to) as BACKFILL executions; none twice")
    .requiredOption('--from <instant>', 'ISO-8601 instant, inclusive')
    .requiredOption('--to <instant>', 'ISO-8601 instant, exclusive; not later than now')
    .option('--dry-run', 'list the occurrences only, creating nothing')
    .action(async (id: string, options: { from: string; to: string; dryRun?: boolean }) => {
      const result = await client().backfillJob(id, options.from, options.to, options.dryRun ?? false);
      show(result, () => {
        const instants = table(result.instants.map((t) => ({ 'at (utc)': t.at, local: t.local })), ['at (utc)', 'local']);
        const excluded = result.excluded > 0 ? `, ${result.excluded} excluded` : '';
        const summary = result.dryRun
          ? `dry run: ${result.instants.length} occurrences${excluded}\n`
          : `created ${result.created}, existing ${result.existing ?? 0}${excluded}${result.lastStartAt ? `, the last starting at ${result.lastStartAt}` : ''}\n`;
        return instants + summary;
      });
    });
  jobs
    .command('delete <id>')
    .description("delete a job (its pending executions are cancelled, its history kept)")
    .action(async (id: string) => {
      const deletedJobId = await client().deleteJob(id);
      show({ deletedJobId }, () => `deleted ${deletedJobId}\n`);
    });

  const executions = program.command('executions').description('list, inspect, cancel and retry executions');
  executions
    .command('ls')
    .description('list executions: by default the history (started or finished), newest first')
    .option('--job <id>', 'only this job')
    .addOption(new Option('--status <status...>', 'only these statuses (of any phase, unless --upcoming)').choices(EXECUTION_STATUSES))
    .addOption(new Option('--upcoming', 'the occurrences not started yet (SCHEDULED, QUEUED) instead, soonest first').conflicts('all'))
    .option('--all', 'every execution, upcoming and history, newest scheduled first (upcoming ones first)')
    .option('--limit <n>', 'at most this many', positiveInt, 20)
    .action(async (options: { job?: string; status?: ExecutionStatus[]; upcoming?: boolean; all?: boolean; limit: number }) => {
      // executionsAll lists history when given neither phase nor statuses; null asks for every phase.
      const phase = options.upcoming ? 'UPCOMING' : options.all ? null : undefined;
      const found: Execution[] = [];
      for await (const execution of client().executionsAll({ jobId: options.job, statuses: options.status, phase, pageSize: Math.min(100, options.limit) })) {
        found.push(execution);
        if (found.length >= options.limit) break;
      }
      show(found, () => table(found.map(executionRow), EXECUTION_COLUMNS));
    });
  executions
    .command('get <id>')
    .description('show one execution with its attempts')
    .action(async (id: string) => {
      const execution = await client().execution(id);
      if (!execution) throw new KairosError('NOT_FOUND', `Execution ${id} was not found`);
      show(execution, () => {
        const attempts = execution.attempts.length ? `\n${table(execution.attempts.map((a) => ({ ...a, http: a.httpStatus })), ['number', 'outcome', 'startedAt', 'finishedAt', 'http', 'workerId', 'error'])}` : '';
        return details(executionDetails(execution)) + attempts;
      });
    });
  for (const name of ['cancel', 'retry'] as const) {
    executions
      .command(`${name} [id]`)
      .description(
        name === 'cancel'
          ? 'cancel an execution (a running attempt is aborted), or, given a filter instead of an id, every waiting and running execution it matches'
          : 'queue a FAILED or CANCELLED execution again, or, given a filter instead of an id, every one it matches (FAILED by default)',
      )
      .option('--job <id>', 'bulk: only this job')
      .addOption(new Option('--status <status...>', 'bulk: only these statuses').choices(EXECUTION_STATUSES))
      .option('--finished-after <time>', 'bulk: only executions finished at or after this ISO time')
      .option('--finished-before <time>', 'bulk: only executions finished before this ISO time')
      .option('--operation-id <key>', 'bulk: an idempotency key; the same key again returns the same operation')
      .option('--wait', 'bulk: print progress until the operation ends')
      .action(async (id: string | undefined, options: BulkOptions) => {
        const filter = bulkFilter(options);
        if (id && filter) throw new CliError(`give an execution id or a filter (--job, --status, --finished-after, --finished-before), not both`, EXIT.USAGE);
        if (id) {
          const execution = name === 'cancel' ? await client().cancelExecution(id) : await client().retryExecution(id);
          show(execution, () => table([executionRow(execution)], EXECUTION_COLUMNS));
          return;
        }
        if (!filter) throw new CliError(`give an execution id, or a filter (--job, --status, --finished-after, --finished-before)`, EXIT.USAGE);
        const kairos = client();
        const args = { operationId: options.operationId };
        const started = name === 'cancel' ? await kairos.cancelExecutions(filter, args) : await kairos.retryExecutions(filter, args);
        if (!options.wait) {
          show(started, () => details(bulkDetails(started)));
          return;
        }
        let last: BulkOperation = started;
        try {
          for await (const progress of kairos.watchBulkOperation(started.id)) {
            last = progress;
            if (output.json) output.out(JSON.stringify(progress) + '\n');
            else output.out(`${progress.status}  ${progress.done}/${progress.total} done${progress.failed ? `, ${progress.failed} failed` : ''}\n`);
          }
        } finally {
          await kairos.close();
        }
        if (!output.json) output.out(details(bulkDetails(last)));
        if (last.status === 'FAILED') throw new CliError(`bulk operation ${last.id} failed: ${last.reason ?? 'no reason given'}`, EXIT.INTERNAL_SERVER_ERROR);
      });
  }

  program
    .command('watch')
    .description('print status changes of executions live, until interrupted')
    .option('--job <id>', 'only this job')
    .addOption(new Option('--status <status...>', 'only changes to these statuses').choices(EXECUTION_STATUSES))
    .option('--count <n>', 'stop after this many events', positiveInt)
    .action(async (options: { job?: string; status?: ExecutionStatus[]; count?: number }) => {
      const kairos = client();
      const stop = new AbortController();
      const onSignal = () => stop.abort();
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      let seen = 0;
      try {
        for await (const event of kairos.watchExecutions({ jobId: options.job, statuses: options.status }, { signal: stop.signal })) {
          if (output.json) output.out(JSON.stringify(event) + '\n');
          else output.out(`${event.occurredAt}  ${event.execution.id}  ${event.execution.job?.name ?? event.execution.jobId}  ${event.previousStatus ?? '(new)'} -> ${event.status}${event.execution.error ? `  ${event.execution.error}` : ''}\n`);
          if (options.count && ++seen >= options.count) break;
        }
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        await kairos.close();
      }
    });

  program
    .command('preview <cron>')
    .description('the next occurrences of a cron expression, creating nothing')
    .option('--tz <zone>', 'IANA time zone', 'UTC')
    .option('--count <n>', 'how many', positiveInt, 5)
    .action(async (cron: string, options: { tz: string; count: number }) => {
      const times = await client().previewSchedule({ cron, timezone: options.tz }, options.count);
      show(times, () => table(times.map((t) => ({ 'at (utc)': t.at, local: t.local })), ['at (utc)', 'local']));
    });

  // Every subcommand reports bad flags the same way: exit code 2 with its help hint.
  for (const command of allCommands(program)) command.exitOverride().showHelpAfterError();
  return program;
}

const EXECUTION_COLUMNS = ['id', 'job', 'status', 'trigger', 'scheduled for', 'attempt', 'duration ms'];

interface JobFlags {
  description?: string;
  cron?: string;
  tz?: string;
  every?: number;
  at?: string;
  handler?: string;
  httpUrl?: string;
  method?: string;
  header?: string[];
  payload?: unknown;
  workload?: 'IO_BOUND' | 'CPU_BOUND';
  timeout?: number;
  maxAttempts?: number;
  overlap?: string;
  misfire?: string;
}

function withJobOptions(command: Command): Command {
  return command
    .option('--description <text>', 'description')
    .option('--cron <expr>', 'cron schedule (5 fields, or 6 with seconds first)')
    .option('--tz <zone>', 'IANA time zone of --cron (default UTC)')
    .option('--every <seconds>', 'fixed interval schedule', positiveInt)
    .option('--at <iso-time>', 'one-off at this instant')
    .option('--handler <name>', 'run a registered handler (built in: noop, sleep)')
    .option('--http-url <url>', 'call this URL')
    .addOption(new Option('--method <method>', 'HTTP method of --http-url').choices(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']))
    .option('--header <name:value...>', 'HTTP header of --http-url (repeatable)')
    .option('--payload <json>', 'JSON payload', parseJson)
    .addOption(new Option('--workload <kind>', 'how a worker runs it').choices(['IO_BOUND', 'CPU_BOUND']))
    .option('--timeout <seconds>', 'per-attempt timeout', positiveInt)
    .option('--max-attempts <n>', 'attempts in all, the first included', positiveInt)
    .addOption(new Option('--overlap <policy>', 'overlap policy').choices(['ALLOW', 'SKIP', 'BUFFER_ONE', 'CANCEL_PREVIOUS']))
    .addOption(new Option('--misfire <policy>', 'misfire policy').choices(['RUN_ONCE', 'RUN_ALL', 'SKIP']));
}

/** The fields of a create or update input that flags set; the others stay undefined (kept by update). */
function jobInput(flags: JobFlags): Partial<CreateJobInput> {
  const schedules = [flags.cron, flags.every, flags.at].filter((v) => v !== undefined).length;
  if (schedules > 1) throw new CliError('give one of --cron, --every and --at', EXIT.USAGE);
  if (flags.tz && !flags.cron) throw new CliError('--tz goes with --cron', EXIT.USAGE);
  if (flags.handler && flags.httpUrl) throw new CliError('give --handler or --http-url, not both', EXIT.USAGE);
  const schedule = flags.cron ? { cron: flags.cron, timezone: flags.tz } : flags.every ? { intervalSeconds: flags.every } : flags.at ? { runAt: flags.at } : undefined;
  const headers = flags.header?.map((h) => {
    const i = h.indexOf(':');
    if (i <= 0) throw new CliError(`--header wants name:value, got ${h}`, EXIT.USAGE);
    return { name: h.slice(0, i).trim(), value: h.slice(i + 1).trim() };
  });
  const target = flags.handler ? { handler: flags.handler } : flags.httpUrl ? { http: { url: flags.httpUrl, method: flags.method as 'POST' | undefined, headers } } : undefined;
  return {
    description: flags.description,
    schedule,
    target,
    payload: flags.payload,
    workload: flags.workload,
    timeoutSeconds: flags.timeout,
    retryPolicy: flags.maxAttempts ? { maxAttempts: flags.maxAttempts } : undefined,
    overlapPolicy: flags.overlap as CreateJobInput['overlapPolicy'],
    misfirePolicy: flags.misfire as CreateJobInput['misfirePolicy'],
  };
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new CliError(`not a positive whole number: ${value}`, EXIT.USAGE);
  return n;
}

function parseJson(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    throw new CliError(`not valid JSON: ${value}`, EXIT.USAGE);
  }
}

function allCommands(command: Command): Command[] {
  return [command, ...command.commands.flatMap(allCommands)];
}
