import { Agenda } from 'agenda';
import { MongoBackend } from '@agendajs/mongo-backend';
import type { Db } from 'mongodb';
import type { RedisClient } from '../redis/redisClient.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { errorMessage } from '../logger.js';
import { LeaderLease } from './leaderLease.js';
import type { MaterialiseDeps } from './materialise.js';
import { reconcile } from './reconcile.js';
import { requeueWaiting } from './requeueWaiting.js';
import { sweepDueJobs } from './sweepDueJobs.js';
import { purgeExecutions, type PurgeDeps } from './purgeExecutions.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KairosMetrics } from '../metrics/kairosMetrics.js';
import type { Tracer } from '@opentelemetry/api';
import { inSpan } from '../tracing/inSpan.js';
import { SPAN_ATTRIBUTES as A } from '../tracing/spanAttributes.js';

/** How many times (every 0.5 s) a new leader tries to re-enqueue the waiting executions. */
const REQUEUE_ATTEMPTS = 20;

export interface SchedulerRoleOptions {
  candidateId: string;
  redisPrefix: string;
  leaseTtlMs: number;
  lookAheadMs: number;
  /** Pause between sweeps. Default 1000 ms. */
  sweepEveryMs?: number;
  /**
   * An occurrence this much older than now when the sweep finds it was missed (no leader in time)
   * and follows the job's misfire policy. Default max(2 × lease TTL, 10 s), so a failover within
   * the lease TTL is not a misfire.
   */
  misfireThresholdMs?: number;
  /** Period of Agenda's `purge` system job (executions past their tenant's retention); config PURGE_EVERY_MS. */
  purgeEveryMs: number;
  /**
   * Period of Agenda's `rebuild-due-index` job, which adds every active job to the due index again: a
   * backstop for an API write whose Redis half failed (a lost Redis is noticed at the next sweep). Default 10 minutes.
   */
  dueIndexRefreshEveryMs?: number;
  /** Period of Agenda's `reconcile` system job; config RECONCILE_EVERY_MS. */
  reconcileEveryMs: number;
  /** How long past its time a waiting execution must be before reconcile re-enqueues it; config RECONCILE_GRACE_MS. */
  reconcileGraceMs: number;
  /** How often Agenda polls for its system jobs. Default 5000 ms, or the reconcile period when shorter. */
  agendaProcessEveryMs?: number;
  /**
   * Agenda's lock lifetime for system jobs. Default 30000 ms. Agenda keeps a timer of
   * max(processEvery, lockLifetime)/2 alive after each run, which delays exit that long.
   */
  agendaLockLifetimeMs?: number;
  /** Records sweep passes, leadership and reconcile repairs. */
  metrics: KairosMetrics;
  /** A span per sweep pass (the no-op tracer when tracing is off). */
  tracer: Tracer;
}

/**
 * The scheduler role: competes for the leader lease; the leader sweeps due jobs every second (a
 * loop beside Agenda, since Agenda polls too coarsely for a one-second tick) and runs Agenda for the
 * coarser system jobs (`reconcile`, and `purge` of executions past retention). Standbys only keep trying the lease. Uses connections owned by the caller.
 */
export class SchedulerRole {
  private readonly lease: LeaderLease;
  private agenda: Agenda | null = null;
  private sweepTimer: NodeJS.Timeout | null = null;
  private sweeping: Promise<void> | null = null;
  private leading = false;
  private starting: Promise<void> = Promise.resolve();
  private standingDown: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    redis: RedisClient,
    private readonly deps: MaterialiseDeps,
    private readonly purge: PurgeDeps,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: SchedulerRoleOptions,
  ) {
    this.lease = new LeaderLease(redis, {
      candidateId: options.candidateId,
      prefix: options.redisPrefix,
      ttlMs: options.leaseTtlMs,
      onAcquired: (token) => {
        options.metrics.leadership(true);
        // A quick lose-and-regain must not interleave with the previous term's stand-down.
        this.starting = this.standingDown.then(() => this.lead(token));
      },
      onLost: () => {
        options.metrics.leadership(false);
        this.standingDown = this.standDown();
      },
      onError: (error) => logger.warn('leader lease check failed', { error: errorMessage(error) }),
    });
  }

  get isLeader(): boolean {
    return this.lease.isLeader;
  }

  start(): void {
    this.lease.start();
  }

  private async lead(token: number): Promise<void> {
    this.logger.info('became scheduler leader', { fencingToken: token });
    this.leading = true;
    this.scheduleSweep(0);
    void this.requeueOnTakeover();
    try {
      const lockLifetimeMs = this.options.agendaLockLifetimeMs ?? 30_000;
      const agenda = new Agenda({
        backend: this.agendaBackend(),
        processEvery: this.options.agendaProcessEveryMs ?? Math.min(5000, this.options.reconcileEveryMs),
        defaultLockLifetime: lockLifetimeMs,
      });
      agenda.on('error', (error: unknown) => this.logger.warn('agenda error', { error: errorMessage(error) }));
      agenda.define('reconcile', async () => {
        try {
          const result = await reconcile(this.deps, this.clock(), { graceMs: this.options.reconcileGraceMs });
          this.options.metrics.repaired('requeued', result.requeued - result.takeovers);
          this.options.metrics.repaired('takeover', result.takeovers);
          if (result.requeued > 0) this.logger.info('reconcile re-enqueued executions past their time', result);
        } catch (error) {
          // Agenda reports a failing job as 'fail', which nothing listens to: log it here.
          this.logger.warn('reconcile failed; retrying at its next run', { error: errorMessage(error) });
        }
      });
      agenda.define('purge', async () => {
        try {
          const result = await purgeExecutions(this.purge, this.clock(), { shouldStop: () => !this.leading });
          if (result.deleted > 0) this.logger.info('purged executions past their retention', result);
        } catch (error) {
          this.logger.warn('purge failed; retrying at its next run', { error: errorMessage(error) });
        }
      });
      const refreshEveryMs = this.options.dueIndexRefreshEveryMs ?? 600_000;
      agenda.define('rebuild-due-index', async (job) => {
        // Reading a million jobs takes minutes on FerretDB, past the lock's lifetime: the lock is
        // renewed meanwhile. (A lock as long as the refresh period made Agenda keep a timer of half
        // that after every run, which held an in-process Kairos, i.e. every test, for 5 minutes after stop.)
        const renew = setInterval(() => void job.touch().catch(() => undefined), lockLifetimeMs / 3);
        try {
          const count = await this.deps.dueIndex.rebuild(() => this.deps.store.activeCursors());
          this.logger.info('refreshed the due index from MongoDB', { jobs: count });
        } catch (error) {
          this.logger.warn('due index refresh failed; retrying at its next run', { error: errorMessage(error) });
        } finally {
          clearInterval(renew);
        }
      });
      this.agenda = agenda;
      await agenda.start();
      await agenda.every(this.options.reconcileEveryMs, 'reconcile');
      await agenda.every(this.options.purgeEveryMs, 'purge');
      await agenda.every(refreshEveryMs, 'rebuild-due-index');
    } catch (error) {
      this.logger.error('could not start agenda', { error: errorMessage(error) });
    }
  }

  /**
   * Agenda's MongoDB backend, its connect() retried while this process leads and never rejected:
   * Agenda 6 calls it in its constructor without a catch, so one failure (on FerretDB, two
   * schedulers racing to create Agenda's collection at start) ended the process and left Agenda never ready.
   */
  private agendaBackend(): MongoBackend {
    const backend = new MongoBackend({ mongo: this.db, collection: 'agendaJobs' });
    const connect = backend.connect.bind(backend);
    backend.connect = async () => {
      for (let attempt = 1; this.leading; attempt++) {
        try {
          return await connect();
        } catch (error) {
          this.logger.warn('agenda could not connect; retrying', { attempt, error: errorMessage(error) });
          await sleep(Math.min(5000, 250 * attempt));
        }
      }
    };
    return backend;
  }

  /** Retried for a while: the lease may come back (main Redis connection) before the queue's connections do. */
  private async requeueOnTakeover(): Promise<void> {
    for (let attempt = 1; this.leading; attempt++) {
      try {
        const now = this.clock();
        const result = await requeueWaiting(this.deps, new Date(now.getTime() + this.options.lookAheadMs));
        this.logger.info('new leader re-enqueued the waiting executions', result);
        this.options.metrics.repaired('leader_requeue', result.requeued);
        return;
      } catch (error) {
        if (attempt >= REQUEUE_ATTEMPTS) {
          // Reconcile covers them later, after their time plus its grace.
          this.logger.warn('could not re-enqueue the waiting executions', { error: errorMessage(error) });
          return;
        }
        await sleep(500);
      }
    }
  }

  private scheduleSweep(delayMs: number): void {
    if (!this.leading) return;
    this.sweepTimer = setTimeout(() => {
      this.sweeping = this.sweepOnce().finally(() => {
        this.sweeping = null;
        this.scheduleSweep(this.options.sweepEveryMs ?? 1000);
      });
    }, delayMs);
  }

  private async sweepOnce(): Promise<void> {
    const token = this.lease.fencingToken;
    if (token === 0) return;
    try {
      const startedAt = performance.now();
      const result = await inSpan(this.options.tracer, 'scheduler.sweep', { attributes: { [A.fencingToken]: token } }, async (span) => {
        const passed = await sweepDueJobs(this.deps, this.clock(), token, {
          lookAheadMs: this.options.lookAheadMs,
          misfireThresholdMs: this.options.misfireThresholdMs ?? Math.max(2 * this.options.leaseTtlMs, 10_000),
        });
        span.setAttributes({ [A.sweepJobs]: passed.jobs, [A.sweepExecutions]: passed.executions, [A.sweepBehindMs]: passed.behindMs });
        return passed;
      });
      this.options.metrics.sweepPassed(result, performance.now() - startedAt, this.clock());
    } catch (error) {
      this.logger.warn('sweep failed; retrying next tick', { error: errorMessage(error) });
    }
  }

  private async standDown(): Promise<void> {
    if (!this.leading) return;
    this.leading = false;
    this.logger.info('no longer scheduler leader');
    await this.starting;
    if (this.sweepTimer) clearTimeout(this.sweepTimer);
    this.sweepTimer = null;
    await this.sweeping;
    const agenda = this.agenda;
    this.agenda = null;
    await agenda?.stop().catch((error: unknown) => this.logger.warn('agenda stop failed', { error: errorMessage(error) }));
  }

  /** Releases the lease at once (a standby takes over without waiting for the TTL) and stops leading. */
  async stop(): Promise<void> {
    // Stand down first (the running sweep ends, Agenda stops), then free the lease for a standby.
    this.standingDown = this.standDown();
    await this.standingDown;
    await this.lease.stop();
  }
}
