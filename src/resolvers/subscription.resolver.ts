import { Arg, Authorized, ID, Resolver, Root, Subscription, type SubscribeResolverData } from 'type-graphql';
import { ObjectId } from 'mongodb';
import type { Context } from './context.type.js';
import { scopeOf } from './auth-checker.js';
import type { ExecutionStatus as ExecutionStatusValue } from '../domain/execution.js';
import { fromGlobalId } from '../ids/globalId.js';
import { RateLimitedError } from '../errors/index.js';
import { ExecutionStatus } from '../schema/enums.js';
import { ExecutionEvent } from '../schema/execution.type.js';
import { toExecutionNode } from './mappers.js';
import type { RelayedEvent } from '../events/relayedEvent.js';

interface ExecutionUpdatedArgs {
  jobId?: string | null;
  statuses?: ExecutionStatusValue[] | null;
}

/**
 * Relays the tenant's events (the scope holds only the token's tenant's) to this subscriber, narrowed
 * by jobId and statuses, each with the execution as of the event: worked out once per event for all
 * the tenant's subscribers of this process (events/relayedExecutions.ts), and sent as the relay
 * gives it, so sharedSubscribe executes each event once per audience (the payload is keyed by its event).
 */
async function executionUpdates({
  args,
  context,
}: SubscribeResolverData<unknown, ExecutionUpdatedArgs, Context>): Promise<AsyncIterableIterator<RelayedEvent>> {
  const scope = scopeOf(context);
  const { jobId, statuses } = args;
  const job = jobId ? fromGlobalId(jobId, 'Job') : null;
  // A malformed or foreign job id matches nothing, exactly like an id that does not exist.
  const jobHex = jobId ? (job?.id.toHexString() ?? 'none') : null;
  const wanted = statuses?.length ? new Set(statuses) : null;
  const stream = await context.app.relayedExecutions.stream(scope.events, {
    accept: (e) => (!jobHex || e.jobId === jobHex) && (!wanted || wanted.has(e.status)),
    read: (executionId) => scope.executions.findById(new ObjectId(executionId)),
  });
  const metrics = context.app.metrics;
  metrics.subscriptionOpened();
  let open = true;
  const closed = () => {
    if (open) metrics.subscriptionClosed();
    open = false;
  };
  // Not an async generator, so that closing the subscription reaches stream.return() at once.
  const next = async (): Promise<IteratorResult<RelayedEvent>> => {
    const result = await stream.next();
    if (result.done) {
      closed();
      return { value: undefined, done: true };
    }
    if (!context.app.eventBudget.take(scope.identity.tenantId)) {
      // This subscription ends; the tenant's others go on while the budget refills (sharedSubscribe sends the error).
      closed();
      await stream.return!();
      throw new RateLimitedError(
        `The tenant's subscriptions were sent more than ${context.app.eventBudget.perSecond} events a second on this server; this one is closed. Subscribe again, narrowed with jobId or statuses`,
        1,
      );
    }
    metrics.eventSent();
    return result;
  };
  const iterator: AsyncIterableIterator<RelayedEvent> = {
    next,
    return: async () => {
      closed();
      await stream.return!();
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}

/** What a subscriber is sent for a relayed event. */
function toExecutionEvent({ event, execution }: RelayedEvent): ExecutionEvent {
  return {
    execution: toExecutionNode(execution),
    previousStatus: event.previousStatus,
    status: event.status,
    occurredAt: new Date(event.occurredAt),
  };
}

@Resolver(() => ExecutionEvent)
export class SubscriptionResolver {
  @Authorized()
  @Subscription(() => ExecutionEvent, {
    description: "Every status change of the caller's tenant's executions, optionally narrowed. Events of one execution arrive in order.",
    subscribe: (data: SubscribeResolverData<unknown, ExecutionUpdatedArgs, Context>) => executionUpdates(data),
  })
  executionUpdated(
    @Root() relayed: RelayedEvent,
    @Arg('jobId', () => ID, { nullable: true }) _jobId: string | null,
    @Arg('statuses', () => [ExecutionStatus], { nullable: true }) _statuses: ExecutionStatusValue[] | null,
  ): ExecutionEvent {
    return toExecutionEvent(relayed);
  }
}
