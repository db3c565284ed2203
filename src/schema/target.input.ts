import 'reflect-metadata';
import { Field, InputType } from 'type-graphql';
import type { HttpMethod as HttpMethodValue } from '../domain/job.js';
import { HttpMethod } from './enums.js';

@InputType('HttpHeaderInput')
export class HttpHeaderInput {
  @Field(() => String)
  name!: string;

  @Field(() => String)
  value!: string;
}

@InputType('HttpTargetInput')
export class HttpTargetInput {
  @Field(() => String, {
    description:
      'http or https. Unless the server runs with ALLOW_PRIVATE_TARGETS=true, a host that is a private, loopback, link-local or reserved IP address is refused here, and a host name that resolves to one fails its attempt when called (not retried).',
  })
  url!: string;

  @Field(() => HttpMethod, { nullable: true, description: 'Default POST.' })
  method?: HttpMethodValue | null;

  @Field(() => [HttpHeaderInput], { nullable: true })
  headers?: HttpHeaderInput[] | null;
}

@InputType('JobTargetInput', { description: 'Exactly one of http, handler.' })
export class JobTargetInput {
  @Field(() => HttpTargetInput, { nullable: true })
  http?: HttpTargetInput | null;

  @Field(() => String, { nullable: true })
  handler?: string | null;
}
