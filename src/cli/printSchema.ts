import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { printSchema } from 'graphql';
import { kairosSchema } from '../api/buildSchema.js';

/** `npm run print-schema`: writes the schema printed from the code to ./schema.graphql (a test fails when it is stale). */
const sdl = printSchema(await kairosSchema()) + '\n';
writeFileSync(process.argv[2] ?? 'schema.graphql', sdl);
process.stdout.write(`wrote ${process.argv[2] ?? 'schema.graphql'}\n`);
