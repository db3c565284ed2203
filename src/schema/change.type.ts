import 'reflect-metadata';
import { Field, ID, ObjectType } from 'type-graphql';
import type { ChangeAction as ChangeActionValue, ChangeTargetType as ChangeTargetTypeValue } from '../domain/change.js';
import type { RoleName } from '../domain/role.js';
import { ChangeAction, ChangeTargetType, Role } from './enums.js';
import { PageInfo } from './pageInfo.type.js';
import { DateTimeScalar, JSONScalar } from './scalars.js';

@ObjectType('ChangeActor', { description: 'Who made a change, from the credential of the request.' })
export class ChangeActor {
  @Field(() => String, { description: "The JWT's subject, or `apiKey:<id>` for an API key." })
  subject!: string;

  @Field(() => ID, { nullable: true, description: 'The API key used; null for a JWT.' })
  apiKeyId?: string | null;

  @Field(() => Role, { description: "The caller's role at the time." })
  role!: RoleName;
}

@ObjectType('ChangeTarget', { description: 'The object a change was made to.' })
export class ChangeTarget {
  @Field(() => ChangeTargetType)
  type!: ChangeTargetTypeValue;

  @Field(() => ID, {
    description: "Its global id (the tenant's id for TENANT, the calendar's name for CALENDAR); the object may have been deleted since.",
  })
  id!: string;
}

@ObjectType('FieldChange', { description: "One field's value before and after a change. Secrets are never shown." })
export class FieldChange {
  @Field(() => String, { description: 'As the API names it (payload, schedule, target, status, ...).' })
  field!: string;

  @Field(() => JSONScalar, { nullable: true, description: 'Null: absent (as for a created object).' })
  before?: unknown;

  @Field(() => JSONScalar, { nullable: true, description: 'Null: absent now (as for a deleted object).' })
  after?: unknown;

  @Field(() => Boolean, {
    description:
      'True when secrets inside the value (HTTP header values, webhook secrets) read "<redacted>": the field changed even when before and after read alike.',
  })
  redacted!: boolean;
}

/** A change record. `job` is added by the change resolver. */
@ObjectType('Change', {
  description: 'One mutation that changed something of the tenant: who, when, and the fields it changed (before and after).',
})
export class Change {
  @Field(() => ID)
  id!: string;

  @Field(() => DateTimeScalar)
  at!: Date;

  @Field(() => ChangeAction)
  action!: ChangeActionValue;

  @Field(() => ChangeActor)
  actor!: ChangeActor;

  @Field(() => ChangeTarget)
  target!: ChangeTarget;

  @Field(() => ID, {
    nullable: true,
    description: 'The job the change concerns (kept after the job is deleted); null for a tenant-wide one.',
  })
  jobId?: string | null;

  @Field(() => [FieldChange], {
    description: 'Only the fields that changed; empty when the action says it all (a running execution signalled to cancel).',
  })
  fields!: FieldChange[];

  @Field(() => JSONScalar, {
    nullable: true,
    description:
      "What the mutation was asked, where that is no field of the object: a bulk operation's filter, a trigger's payload, a rotation's grace.",
  })
  details?: unknown;
}

@ObjectType('ChangeEdge')
export class ChangeEdge {
  @Field(() => String)
  cursor!: string;

  @Field(() => Change)
  node!: Change;
}

@ObjectType('ChangeConnection')
export class ChangeConnection {
  @Field(() => [ChangeEdge])
  edges!: ChangeEdge[];

  @Field(() => PageInfo)
  pageInfo!: PageInfo;
}
