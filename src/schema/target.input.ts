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
  @Field(() => String)
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
