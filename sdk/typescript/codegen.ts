import type { CodegenConfig } from '@graphql-codegen/cli';

/**
 * Types and typed documents from the root schema.graphql: the SDK's from this package's
 * operations/*.graphql, and the dashboard's own (the few its pages select differently from the SDK)
 * from ui/src/api/operations.graphql, with the same plugins so the SDK's client runs both.
 * SCHEMA overrides the schema path; OUT_DIR writes both into that folder (sdk.ts, ui.ts) instead,
 * for the staleness check.
 */
const out = process.env.OUT_DIR;
const output = {
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
};
const config: CodegenConfig = {
  schema: process.env.SCHEMA ?? '../../schema.graphql',
  generates: {
    [out ? `${out}/sdk.ts` : 'src/generated/graphql.ts']: { ...output, documents: 'operations/*.graphql' },
    [out ? `${out}/ui.ts` : '../../ui/src/api/generated.ts']: { ...output, documents: '../../ui/src/api/operations.graphql' },
  },
};
export default config;
