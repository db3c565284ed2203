import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { Context } from './context.type.js';
import { scopeOf } from './auth-checker.js';
import { visibleHeaderValue } from '../domain/headerVisibility.js';
import { HttpHeader } from '../schema/target.type.js';

/**
 * HttpHeader.value as the caller's role may read it. A field resolver rather than a mapping, so
 * every way to a job's target (job, jobs, node, an execution's job, mutation payloads, the
 * subscription) goes through it.
 */
@Resolver(() => HttpHeader)
export class HttpHeaderResolver {
  @FieldResolver(() => String)
  value(@Root() header: HttpHeader, @Ctx() ctx: Context): string {
    return visibleHeaderValue(header.value, scopeOf(ctx).identity.role);
  }
}
