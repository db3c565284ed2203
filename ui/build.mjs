// Builds the dashboard (and GraphiQL for development mode) into ../dist/ui: bundles with content
// hashes in their names (served with a year's cache) and small HTML pages that name them (never cached).
import { build } from 'esbuild';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.resolve(here, '../dist/ui');
const assets = path.join(out, 'assets');

await rm(out, { recursive: true, force: true });
await mkdir(assets, { recursive: true });

/** Bundles one entry and returns the hashed names of its script and stylesheet. */
async function bundle(name, entry) {
  const result = await build({
    absWorkingDir: here,
    entryPoints: { [name]: entry },
    bundle: true,
    format: 'esm',
    target: 'es2022',
    minify: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    outdir: assets,
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    metafile: true,
    loader: { '.graphql': 'text' },
    // The TypeScript SDK's source (src/api/client.ts) takes graphql-ws from this package's lockfile,
    // not from whatever node_modules is nearest to sdk/typescript/src (none, or the server's).
    alias: { 'graphql-ws': 'graphql-ws' },
    legalComments: 'none',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'warning',
  });
  const [file, meta] = Object.entries(result.metafile.outputs).find(([, m]) => m.entryPoint === entry);
  return { js: path.basename(file), css: meta.cssBundle ? path.basename(meta.cssBundle) : null };
}

function page(title, files) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="icon" href="data:,">
${files.css ? `<link rel="stylesheet" href="/ui/assets/${files.css}">\n` : ''}<script type="module" src="/ui/assets/${files.js}"></script>
</head>
<body>
<div id="app"></div>
</body>
</html>
`;
}

await writeFile(path.join(out, 'index.html'), page('Kairos', await bundle('app', 'src/main.tsx')));
// GraphiQL (React) is only served in development mode; it is built beside the dashboard, not into it.
await writeFile(path.join(out, 'graphiql.html'), page('Kairos GraphiQL', await bundle('graphiql', 'src/graphiql.js')));
process.stdout.write(`dashboard built into ${path.relative(process.cwd(), out) || out}\n`);
