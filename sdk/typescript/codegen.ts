import type { CodegenConfig } from '@graphql-codegen/cli';

/**
 * Types and typed documents from the root schema.graphql and this package's operations/*.graphql.
 * SCHEMA overrides the schema path (the staleness check points it at the same file, OUT at a temp dir).
 */
const config: CodegenConfig = {
  schema: process.env.SCHEMA ?? '../../schema.graphql',
  documents: 'operations/*.graphql',
  generates: {
    [process.env.OUT ?? 'src/generated/graphql.ts']: {
      plugins: ['typescript-operations', 'typed-document-node'],
      config: {
        // Plain strings (no graphql-js AST at run time): the client sends them as they are.
        documentMode: 'string',
        enumsAsTypes: true,
        arrayInputCoercion: false,
        useTypeImports: true,
        avoidOptionals: { field: true, inputValue: false, object: false, defaultValue: false },
        scalars: { DateTime: 'string', JSON: 'unknown', ID: 'string' },
        skipTypename: false,
        nonOptionalTypename: false,
      },
    },
  },
};
export default config;
