import { Arg, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { Context } from './context.type.js';
import { scopeOf } from './auth-checker.js';
import { createApiKey } from '../apiKeys/createApiKey.js';
import { revokeApiKey } from '../apiKeys/revokeApiKey.js';
import { NotFoundError } from '../errors/index.js';
import { fromGlobalId } from '../ids/globalId.js';
import { ApiKey, ApiKeyPayload, WebhookSecretPayload } from '../schema/apiKey.type.js';
import { Role } from '../schema/enums.js';
import type { RoleName } from '../domain/role.js';
import { rotateWebhookSecret } from '../tenants/rotateWebhookSecret.js';
import { toApiKey } from './mappers.js';

/** API keys and the webhook secret: ADMIN only. */
@Resolver(() => ApiKey)
@Authorized('ADMIN')
export class ApiKeyResolver {
  @Query(() => [ApiKey], { description: 'ADMIN only.' })
  async apiKeys(@Ctx() ctx: Context): Promise<ApiKey[]> {
    return (await scopeOf(ctx).apiKeys.list()).map(toApiKey);
  }

  @Mutation(() => ApiKeyPayload, { description: 'ADMIN only.' })
  async createApiKey(
    @Arg('name', () => String) name: string,
    @Arg('role', () => Role) role: RoleName,
    @Ctx() ctx: Context,
  ): Promise<ApiKeyPayload> {
    const { apiKey, secret } = await createApiKey(scopeOf(ctx).apiKeys, { name, role }, ctx.app.clock());
    return { apiKey: toApiKey(apiKey), secret };
  }

  @Mutation(() => ApiKey, { description: 'ADMIN only.' })
  async revokeApiKey(@Arg('id', () => ID) id: string, @Ctx() ctx: Context): Promise<ApiKey> {
    // A malformed id or one of another type is NOT_FOUND, like a missing key.
    const parsed = fromGlobalId(id, 'ApiKey');
    if (!parsed) throw new NotFoundError('ApiKey', id);
    return toApiKey(await revokeApiKey(scopeOf(ctx).apiKeys, parsed.id));
  }

  @Mutation(() => WebhookSecretPayload, { description: "ADMIN only. Replaces the tenant's webhook signing secret." })
  async rotateWebhookSecret(@Ctx() ctx: Context): Promise<WebhookSecretPayload> {
    return { secret: await rotateWebhookSecret(scopeOf(ctx).tenant, ctx.app.clock()) };
  }
}
