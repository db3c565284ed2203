import 'reflect-metadata';
import { Field, ObjectType } from 'type-graphql';
import { DateTimeScalar } from './scalars.js';

@ObjectType('WebhookSecretRotation', {
  description: "Where the tenant's webhook signing secret stands. The secrets themselves are never shown here.",
})
export class WebhookSecretRotation {
  @Field(() => DateTimeScalar, {
    nullable: true,
    description:
      'When the secret replaced by the last rotateWebhookSecret stops signing deliveries (until then each delivery carries a signature with the new secret and one with it); null when no previous secret is valid: never rotated, rotated without a grace, revoked or expired.',
  })
  previousSecretExpiresAt!: Date | null;

  @Field(() => DateTimeScalar, { nullable: true, description: 'When rotateWebhookSecret last replaced the secret; null if never.' })
  rotatedAt!: Date | null;
}
