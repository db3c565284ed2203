import 'reflect-metadata';
import { Field, InputType } from 'type-graphql';

@InputType('LabelInput', {
  description:
    "A label of a job, or one a filter asks for. key: 1 to 63 characters, letters, digits, '.', '_', '/' or '-', starting with a letter or digit; value: at most 200 characters (may be empty).",
})
export class LabelInput {
  @Field(() => String)
  key!: string;

  @Field(() => String)
  value!: string;
}
