import 'reflect-metadata';
import { createUnionType, Field, ObjectType } from 'type-graphql';
import { HIDDEN_HEADER_VALUE } from '../domain/headerVisibility.js';
import type { HttpMethod as HttpMethodValue } from '../domain/job.js';
import { HttpMethod } from './enums.js';

@ObjectType('HttpHeader')
export class HttpHeader {
  @Field(() => String)
  name!: string;

  @Field(() => String, {
    description: `Hidden from VIEWER callers, who read "${HIDDEN_HEADER_VALUE}" in its place (the name stays); MEMBER and ADMIN read the value.`,
  })
  value!: string;
}

@ObjectType('HttpTarget')
export class HttpTarget {
  /** Not a GraphQL field: optional tag that decides the JobTarget union member. */
  declare __typename?: 'HttpTarget';

  @Field(() => String)
  url!: string;

  @Field(() => HttpMethod)
  method!: HttpMethodValue;

  @Field(() => [HttpHeader])
  headers!: HttpHeader[];
}

@ObjectType('HandlerTarget', { description: 'A handler registered in the worker processes (built in: noop, sleep).' })
export class HandlerTarget {
  /** Not a GraphQL field: optional tag that decides the JobTarget union member. */
  declare __typename?: 'HandlerTarget';

  @Field(() => String)
  handler!: string;
}

/**
 * Resolves the JobTarget member from `__typename` when present, otherwise from the shape: the
 * domain's `{ kind: 'HTTP', url, ... }` / `{ kind: 'HANDLER', handler }` work as they are.
 */
export function resolveJobTargetType(value: unknown): 'HttpTarget' | 'HandlerTarget' {
  if (value !== null && typeof value === 'object') {
    const v = value as { __typename?: unknown; kind?: unknown; url?: unknown; handler?: unknown };
    if (v.__typename === 'HttpTarget' || v.__typename === 'HandlerTarget') return v.__typename;
    if (v.kind === 'HTTP' || typeof v.url === 'string') return 'HttpTarget';
    if (v.kind === 'HANDLER' || typeof v.handler === 'string') return 'HandlerTarget';
  }
  throw new Error('Cannot resolve the JobTarget member: expected an object with `url` (HttpTarget) or `handler` (HandlerTarget).');
}

export const JobTarget = createUnionType({
  name: 'JobTarget',
  types: () => [HttpTarget, HandlerTarget] as const,
  resolveType: resolveJobTargetType,
});
/** The value of a JobTarget field: either member (plain objects with the members' fields are fine). */
export type JobTarget = HttpTarget | HandlerTarget;
