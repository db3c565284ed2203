import { NoSchemaIntrospectionCustomRule, type ValidationRule } from 'graphql';
import { queryLimits } from './queryLimits.js';

/**
 * The validation rules, beyond graphql-js's standard ones, that every operation passes over both
 * transports (HTTP and graphql-ws), so neither offers what the other refuses. Outside development
 * mode introspection is refused; name suggestions are removed from messages by formatError.
 */
export function validationRules(development: boolean): ValidationRule[] {
  return development ? [queryLimits] : [queryLimits, NoSchemaIntrospectionCustomRule];
}
