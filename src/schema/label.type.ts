import 'reflect-metadata';
import { Field, ObjectType } from 'type-graphql';

@ObjectType('Label', { description: "One of a job's labels: a key and its value." })
export class Label {
  @Field(() => String)
  key!: string;

  @Field(() => String)
  value!: string;
}
