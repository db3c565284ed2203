import 'reflect-metadata';
import { Field, ID, Int, ObjectType } from 'type-graphql';
import { Role } from './enums.js';
import type { RoleName } from '../domain/role.js';
import { WebhookSecretRotation } from './webhookSecretRotation.type.js';

@ObjectType('TenantQuota')
export class TenantQuota {
  @Field(() => Int)
  maxJobs!: number;

  @Field(() => Int)
  jobCount!: number;

  @Field(() => Int)
  maxConcurrentExecutions!: number;

  @Field(() => Int)
  maxExecutionsPerMinute!: number;

  @Field(() => Int, {
    description:
      'Executions that may wait to run at once (QUEUED or RETRYING, due or not); past it triggerJob and retryExecution answer QUOTA_EXCEEDED. Scheduled occurrences count too but are never refused.',
  })
  maxWaitingExecutions!: number;

  @Field(() => Int, {
    nullable: true,
    description:
      "The tenant's executions waiting to run now, as counted against maxWaitingExecutions (it may run briefly high: it is checked against the queue before a refusal); null when Redis cannot answer.",
  })
  waitingExecutions!: number | null;

  @Field(() => Int, { description: 'Finished executions are kept this many days after they finished, then deleted.' })
  executionRetentionDays!: number;

  @Field(() => Int, {
    description:
      'Subscription sockets one credential (a JWT subject or an API key) may hold open on one API server; the next is closed at connection_init with code 4429.',
  })
  maxSocketsPerCredential!: number;

  @Field(() => Int, {
    description:
      'Subscription sockets the whole tenant may hold open on one API server; the next is closed at connection_init with code 4429.',
  })
  maxSockets!: number;

  @Field(() => Int, {
    description: 'Operations one socket may run at once; the next subscribe gets QUOTA_EXCEEDED and the socket stays open.',
  })
  maxSubscriptionsPerSocket!: number;

  @Field(() => Int, {
    description: "Operations the tenant's sockets on one API server may run at once, together; the next subscribe gets QUOTA_EXCEEDED.",
  })
  maxSubscriptions!: number;
}

@ObjectType('Viewer', {
  description: 'Who the token says the caller is. The tenant always comes from the token, never from an argument.',
})
export class Viewer {
  @Field(() => ID)
  tenantId!: string;

  @Field(() => String)
  subject!: string;

  @Field(() => Role)
  role!: RoleName;

  @Field(() => TenantQuota)
  quota!: TenantQuota;

  @Field(() => WebhookSecretRotation, { description: 'Whether a replaced webhook secret still signs deliveries, and until when.' })
  webhookSecretRotation!: WebhookSecretRotation;
}
