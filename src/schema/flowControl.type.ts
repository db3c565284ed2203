import 'reflect-metadata';
import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType('FlowControl', { description: 'See FlowControlInput.' })
export class FlowControl {
  @Field(() => String, { description: "The key in effect: the one given, or the target's." })
  key!: string;

  @Field(() => Boolean, {
    description: "The key was not given: it is the target URL's origin (or `handler:<name>`) and follows the target.",
  })
  keyFromTarget!: boolean;

  @Field(() => Int, { nullable: true })
  maxConcurrent?: number | null;

  @Field(() => Int, { nullable: true })
  maxPerMinute?: number | null;
}
