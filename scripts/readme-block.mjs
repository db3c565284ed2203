// `node scripts/readme-block.mjs FILE MARKER`: prints the fenced code block that follows the HTML
// comment `<!-- MARKER ... -->` in FILE, so that a check runs the documentation's own text rather
// than a copy of it. Fails when FILE has no such block, or more than one.
import { readFileSync } from 'node:fs';

const [file, marker] = process.argv.slice(2);
if (!file || !marker) {
  process.stderr.write('usage: node scripts/readme-block.mjs FILE MARKER\n');
  process.exit(2);
}
const escaped = marker.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// The marker ends at a space, a comma or the comment's end: `go-install: run` is not `go-install: runner`.
const pattern = new RegExp(`<!-- ${escaped}(?=[\\s,]|-->)[^>]*-->\\s*\`\`\`[\\w-]*\\n([\\s\\S]*?)\`\`\``, 'g');
const blocks = [...readFileSync(file, 'utf8').matchAll(pattern)];
if (blocks.length !== 1) {
  process.stderr.write(`${file}: expected one code block marked <!-- ${marker} -->, found ${blocks.length}\n`);
  process.exit(1);
}
process.stdout.write(blocks[0][1]);
