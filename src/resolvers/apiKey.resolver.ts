import { Arg, Authorized, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { Context } from './context.type.js';
import { scopeOf } from './auth-checker.js';
import { createApiKey } from '../apiKeys/createApiKey.js';
import { revokeApiKey } from '../apiKeys/revokeApiKey.js';
import { NotFoundError } from '../errors/index.js';
import { fromGlobalId } from '../ids/globalId.js';
import { ApiKey, ApiKeyPayload, WebhookSecretPayload } from '../schema/apiKey.type.js';
import { Role } from '../schema/enums.js';
import type { RoleName } from '../domain/role.js';
import { DEFAULT_GRACE_PERIOD_SECONDS } from '../domain/webhookSecretRotation.js';
import { WebhookSecretRotation } from '../schema/webhookSecretRotation.type.js';
import { revokePreviousWebhookSecret } from '../tenants/revokePreviousWebhookSecret.js';
import { rotateWebhookSecret } from '../tenants/rotateWebhookSecret.js';
import { toApiKey, toWebhookSecretRotation } from './mappers.js';

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
    const scope = scopeOf(ctx);
    const { apiKey, secret } = await createApiKey({ keys: scope.apiKeys, changes: scope.changeLog }, { name, role }, ctx.app.clock());
    return { apiKey: toApiKey(apiKey), secret };
  }

  @Mutation(() => ApiKey, { description: 'ADMIN only.' })
  async revokeApiKey(@Arg('id', () => ID) id: string, @Ctx() ctx: Context): Promise<ApiKey> {
    // A malformed id or one of another type is NOT_FOUND, like a missing key.
    const parsed = fromGlobalId(id, 'ApiKey');
    if (!parsed) throw new NotFoundError('ApiKey', id);
    const scope = scopeOf(ctx);
    return toApiKey(await revokeApiKey({ keys: scope.apiKeys, changes: scope.changeLog }, parsed.id, ctx.app.clock()));
  }

  // The description is the first public contract's, word for word: the grace is told on its argument.
  @Mutation(() => WebhookSecretPayload, { description: "ADMIN only. Replaces the tenant's webhook signing secret." })
  async rotateWebhookSecret(
    // Nullable so that a client's optional variable may be passed through: null is the default too.
    @Arg('gracePeriodSeconds', () => Int, {
      nullable: true,
      defaultValue: DEFAULT_GRACE_PERIOD_SECONDS,
      description:
        'How long the replaced secret still signs deliveries, beside the new one: 0 (not at all) to 604800 (7 days); default (or null) a day. A rotation during a grace replaces that previous secret: one previous secret at a time.',
    })
    gracePeriodSeconds: number | null,
    @Ctx() ctx: Context,
  ): Promise<WebhookSecretPayload> {
    const scope = scopeOf(ctx);
    return rotateWebhookSecret(
      { tenant: scope.tenant, changes: scope.changeLog },
      ctx.app.clock(),
      gracePeriodSeconds ?? DEFAULT_GRACE_PERIOD_SECONDS,
    );
  }

  @Mutation(() => WebhookSecretRotation, {
    description:
      'ADMIN only. Ends the grace of the secret the last rotateWebhookSecret replaced: deliveries are signed with the current secret alone from the next attempt on. Idempotent.',
  })
  async revokePreviousWebhookSecret(@Ctx() ctx: Context): Promise<WebhookSecretRotation> {
    const now = ctx.app.clock();
    const scope = scopeOf(ctx);
    return toWebhookSecretRotation(await revokePreviousWebhookSecret({ tenant: scope.tenant, changes: scope.changeLog }, now), now);
  }
}
