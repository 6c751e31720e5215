// The README stays a newcomer's page (at most 300 lines) and points into docs/; every relative link of the
// README and of docs/ names a file that exists.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

function markdownFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? markdownFiles(path.join(dir, e.name)) : e.name.endsWith('.md') ? [path.join(dir, e.name)] : []));
}

test('the README has at most 300 lines and links the reference under docs/', () => {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const lines = readme.trimEnd().split('\n').length;
  assert.ok(lines <= 300, `README.md has ${lines} lines`);
  for (const doc of ['docs/api/README.md', 'docs/configuration.md', 'docs/operations.md', 'docs/plugins.md', 'docs/testing.md', 'docs/design.md']) assert.ok(readme.includes(`](${doc})`), `the README links ${doc}`);
});

test('relative links of the README and docs/ resolve', () => {
  const broken: string[] = [];
  for (const file of [path.join(root, 'README.md'), ...markdownFiles(path.join(root, 'docs'))]) {
    const text = fs.readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1]!;
      if (/^[a-z]+:/i.test(target)) continue;
      const [p, anchor] = target.split('#');
      if (!p) {
        // an anchor of the same file: a heading with that slug
        const slugs = [...text.matchAll(/^#+ (.+)$/gm)].map((h) => h[1]!.toLowerCase().replace(/[^\w\s-]/g, '').trim().replace(/\s+/g, '-'));
        if (!slugs.includes(anchor!)) broken.push(`${path.relative(root, file)}: #${anchor}`);
        continue;
      }
      if (!fs.existsSync(path.resolve(path.dirname(file), p))) broken.push(`${path.relative(root, file)}: ${target}`);
    }
  }
  assert.deepEqual(broken, []);
});
