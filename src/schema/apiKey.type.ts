import 'reflect-metadata';
import { Field, ID, ObjectType } from 'type-graphql';
import { Role } from './enums.js';
import type { RoleName } from '../domain/role.js';
import { DateTimeScalar } from './scalars.js';

@ObjectType('ApiKey')
export class ApiKey {
  @Field(() => ID)
  id!: string;

  @Field(() => String)
  name!: string;

  @Field(() => Role)
  role!: RoleName;

  @Field(() => String, { description: 'The first characters of the secret, for recognising it.' })
  prefix!: string;

  @Field(() => DateTimeScalar)
  createdAt!: Date;

  @Field(() => DateTimeScalar, { nullable: true })
  lastUsedAt?: Date | null;
}

@ObjectType('ApiKeyPayload')
export class ApiKeyPayload {
  @Field(() => ApiKey)
  apiKey!: ApiKey;

  @Field(() => String, { description: 'Shown once.' })
  secret!: string;
}

@ObjectType('WebhookSecretPayload')
export class WebhookSecretPayload {
  @Field(() => String, { description: 'HMAC-SHA256 key for X-Kairos-Signature. Shown once.' })
  secret!: string;

  @Field(() => DateTimeScalar, {
    nullable: true,
    description: 'Until when the replaced secret also signs deliveries (gracePeriodSeconds from now); null when gracePeriodSeconds was 0.',
  })
  previousSecretExpiresAt?: Date | null;
}
