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
}

/** What the scheduler role runs on: connections and services owned by the caller. */
export interface SchedulerRoleDeps {
  /** Agenda's collection (`agendaJobs`). */
  db: Db;
  /** The leader lease's connection. */
  redis: RedisClient;
  /** The sweep, reconcile, the due index's rebuild and a new leader's requeue. */
  materialise: MaterialiseDeps;
  /** The purge of executions past their tenant's retention. */
  purge: PurgeDeps;
  clock: Clock;
  logger: Logger;
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
    private readonly deps: SchedulerRoleDeps,
    private readonly options: SchedulerRoleOptions,
  ) {
    const { redis, metrics, logger } = deps;
    this.lease = new LeaderLease(redis, {
      candidateId: options.candidateId,
      prefix: options.redisPrefix,
      ttlMs: options.leaseTtlMs,
      onAcquired: (token) => {
        metrics.leadership(true);
        // A quick lose-and-regain must not interleave with the previous term's stand-down.
        this.starting = this.standingDown.then(() => this.lead(token));
      },
      onLost: () => {
        metrics.leadership(false);
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
    this.deps.logger.info('became scheduler leader', { fencingToken: token });
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
      agenda.on('error', (error: unknown) => this.deps.logger.warn('agenda error', { error: errorMessage(error) }));
      agenda.define('reconcile', async () => {
        try {
          const result = await reconcile(this.deps.materialise, this.deps.clock(), { graceMs: this.options.reconcileGraceMs });
          this.deps.metrics.repaired('requeued', result.requeued - result.takeovers);
          this.deps.metrics.repaired('takeover', result.takeovers);
          if (result.requeued > 0) this.deps.logger.info('reconcile re-enqueued executions past their time', result);
        } catch (error) {
          // Agenda reports a failing job as 'fail', which nothing listens to: log it here.
          this.deps.logger.warn('reconcile failed; retrying at its next run', { error: errorMessage(error) });
        }
      });
      agenda.define('purge', async () => {
        try {
          const result = await purgeExecutions(this.deps.purge, this.deps.clock(), { shouldStop: () => !this.leading });
          if (result.deleted > 0) this.deps.logger.info('purged executions past their retention', result);
        } catch (error) {
          this.deps.logger.warn('purge failed; retrying at its next run', { error: errorMessage(error) });
        }
      });
      const refreshEveryMs = this.options.dueIndexRefreshEveryMs ?? 600_000;
      agenda.define('rebuild-due-index', async (job) => {
        // Reading a million jobs takes minutes on FerretDB, past the lock's lifetime: the lock is
        // renewed meanwhile. (A lock as long as the refresh period made Agenda keep a timer of half
        // that after every run, which held an in-process Kairos, i.e. every test, for 5 minutes after stop.)
        const renew = setInterval(() => void job.touch().catch(() => undefined), lockLifetimeMs / 3);
        try {
          const count = await this.deps.materialise.dueIndex.rebuild(() => this.deps.materialise.store.activeCursors());
          this.deps.logger.info('refreshed the due index from MongoDB', { jobs: count });
        } catch (error) {
          this.deps.logger.warn('due index refresh failed; retrying at its next run', { error: errorMessage(error) });
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
      this.deps.logger.error('could not start agenda', { error: errorMessage(error) });
    }
  }

  /**
   * Agenda's MongoDB backend, its connect() retried while this process leads and never rejected:
   * Agenda 6 calls it in its constructor without a catch, so one failure (on FerretDB, two
   * schedulers racing to create Agenda's collection at start) ended the process and left Agenda never ready.
   */
  private agendaBackend(): MongoBackend {
    const backend = new MongoBackend({ mongo: this.deps.db, collection: 'agendaJobs' });
    const connect = backend.connect.bind(backend);
    backend.connect = async () => {
      for (let attempt = 1; this.leading; attempt++) {
        try {
          return await connect();
        } catch (error) {
          this.deps.logger.warn('agenda could not connect; retrying', { attempt, error: errorMessage(error) });
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
        const now = this.deps.clock();
        const result = await requeueWaiting(this.deps.materialise, new Date(now.getTime() + this.options.lookAheadMs));
        this.deps.logger.info('new leader re-enqueued the waiting executions', result);
        this.deps.metrics.repaired('leader_requeue', result.requeued);
        return;
      } catch (error) {
        if (attempt >= REQUEUE_ATTEMPTS) {
          // Reconcile covers them later, after their time plus its grace.
          this.deps.logger.warn('could not re-enqueue the waiting executions', { error: errorMessage(error) });
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
      const result = await inSpan(this.deps.tracer, 'scheduler.sweep', { attributes: { [A.fencingToken]: token } }, async (span) => {
        const passed = await sweepDueJobs(this.deps.materialise, this.deps.clock(), token, {
          lookAheadMs: this.options.lookAheadMs,
          misfireThresholdMs: this.options.misfireThresholdMs ?? Math.max(2 * this.options.leaseTtlMs, 10_000),
        });
        span.setAttributes({ [A.sweepJobs]: passed.jobs, [A.sweepExecutions]: passed.executions, [A.sweepBehindMs]: passed.behindMs });
        return passed;
      });
      this.deps.metrics.sweepPassed(result, performance.now() - startedAt, this.deps.clock());
    } catch (error) {
      this.deps.logger.warn('sweep failed; retrying next tick', { error: errorMessage(error) });
    }
  }

  private async standDown(): Promise<void> {
    if (!this.leading) return;
    this.leading = false;
    this.deps.logger.info('no longer scheduler leader');
    await this.starting;
    if (this.sweepTimer) clearTimeout(this.sweepTimer);
    this.sweepTimer = null;
    await this.sweeping;
    const agenda = this.agenda;
    this.agenda = null;
    await agenda?.stop().catch((error: unknown) => this.deps.logger.warn('agenda stop failed', { error: errorMessage(error) }));
  }

  /** Releases the lease at once (a standby takes over without waiting for the TTL) and stops leading. */
  async stop(): Promise<void> {
    // Stand down first (the running sweep ends, Agenda stops), then free the lease for a standby.
    this.standingDown = this.standDown();
    await this.standingDown;
    await this.lease.stop();
  }
}
