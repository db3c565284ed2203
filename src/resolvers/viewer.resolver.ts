import { Authorized, Ctx, Query, Resolver } from 'type-graphql';
import type { Context } from './context.type.js';
import { scopeOf } from './auth-checker.js';
import { Viewer } from '../schema/viewer.type.js';
import type { JobCounter } from '../quotas/jobCounter.js';
import { toWebhookSecretRotation } from './mappers.js';

/** The counter, or MongoDB's count when Redis cannot answer. */
function countJobs(counter: JobCounter, tenantId: string, count: () => Promise<number>): Promise<number> {
  return counter.current(tenantId, count).catch(() => count());
}

@Resolver(() => Viewer)
export class ViewerResolver {
  @Authorized()
  @Query(() => Viewer)
  async viewer(@Ctx() ctx: Context): Promise<Viewer> {
    const { identity, jobs, tenant: own } = scopeOf(ctx);
    const now = ctx.app.clock();
    const [tenant, jobCount, waitingExecutions] = await Promise.all([
      own.ensure(now),
      countJobs(ctx.app.operations.jobCounter, identity.tenantId, () => jobs.countAll()),
      ctx.app.operations.waiting.count(identity.tenantId).catch(() => null),
    ]);
    return {
      tenantId: identity.tenantId,
      subject: identity.subject,
      role: identity.role,
      quota: {
        maxJobs: tenant.maxJobs,
        jobCount,
        maxConcurrentExecutions: tenant.maxConcurrentExecutions,
        maxExecutionsPerMinute: tenant.maxExecutionsPerMinute,
        maxWaitingExecutions: tenant.maxWaitingExecutions,
        waitingExecutions,
        executionRetentionDays: tenant.executionRetentionDays,
        maxSocketsPerCredential: tenant.maxSocketsPerCredential,
        maxSockets: tenant.maxSockets,
        maxSubscriptionsPerSocket: tenant.maxSubscriptionsPerSocket,
        maxSubscriptions: tenant.maxSubscriptions,
      },
      webhookSecretRotation: toWebhookSecretRotation(tenant, now),
    };
  }
}
