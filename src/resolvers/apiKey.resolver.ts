import { Arg, Authorized, ID, Mutation, Query, Resolver } from 'type-graphql';
import { ApiKey, ApiKeyPayload, WebhookSecretPayload } from '../schema/apiKey.type.js';
import { Role } from '../schema/enums.js';
import { notImplemented } from './notImplemented.js';

/** API keys and the webhook secret: ADMIN only. Built by the multi-tenant security issue. */
@Resolver(() => ApiKey)
@Authorized('ADMIN')
export class ApiKeyResolver {
  @Query(() => [ApiKey], { description: 'ADMIN only.' })
  apiKeys(): ApiKey[] {
    return notImplemented('apiKeys');
  }

  @Mutation(() => ApiKeyPayload, { description: 'ADMIN only.' })
  createApiKey(@Arg('name', () => String) _name: string, @Arg('role', () => Role) _role: Role): ApiKeyPayload {
    return notImplemented('createApiKey');
  }

  @Mutation(() => ApiKey, { description: 'ADMIN only.' })
  revokeApiKey(@Arg('id', () => ID) _id: string): ApiKey {
    return notImplemented('revokeApiKey');
  }

  @Mutation(() => WebhookSecretPayload, { description: "ADMIN only. Replaces the tenant's webhook signing secret." })
  rotateWebhookSecret(): WebhookSecretPayload {
    return notImplemented('rotateWebhookSecret');
  }
}
