#!/usr/bin/env node
// Packs @quire/sdk as it is published: its dist with the kernel (@quire/core) and the kernel's dependencies
// (zod, semver) bundled inside (bundleDependencies), so that installing the tarball needs no registry and a
// plugin's copy of the SDK is the host's kernel at the same version.
// Usage: node core/sdk/scripts/pack.mjs [out-dir]   (builds the SDK first; prints the tarball's path)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const sdkDir = path.resolve(import.meta.dirname, '..');
const root = path.resolve(sdkDir, '../..');
const kernelDir = path.join(root, 'core/kernel');
const outDir = path.resolve(process.argv[2] ?? process.cwd());
const readJson = (p) => JSON.parse(fs.readFileSync(p, 'utf8'));
const copy = (from, to) => fs.cpSync(from, to, { recursive: true, dereference: true, filter: (src) => !src.endsWith('.map') && !src.endsWith('.tsbuildinfo') });

execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-b', path.join(sdkDir, 'tsconfig.json')], { stdio: 'inherit' });

const sdk = readJson(path.join(sdkDir, 'package.json'));
const kernel = readJson(path.join(kernelDir, 'package.json'));
const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-sdk-pack-'));
try {
  copy(path.join(sdkDir, 'dist'), path.join(stage, 'dist'));
  const core = path.join(stage, 'node_modules/@quire/core');
  copy(path.join(kernelDir, 'dist'), path.join(core, 'dist'));
  fs.writeFileSync(
    path.join(core, 'package.json'),
    JSON.stringify({ name: kernel.name, version: kernel.version, description: kernel.description, license: kernel.license, type: 'module', engines: kernel.engines, exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } }, dependencies: kernel.dependencies }, null, 2),
  );
  const bundled = Object.keys(kernel.dependencies);
  for (const dep of bundled) copy(path.join(root, 'node_modules', dep), path.join(stage, 'node_modules', dep));
  const pkg = {
    name: sdk.name,
    version: sdk.version,
    description: sdk.description,
    license: sdk.license,
    type: 'module',
    engines: sdk.engines,
    exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' }, './package.json': './package.json' },
    files: ['dist'],
    dependencies: { [kernel.name]: kernel.version, ...Object.fromEntries(bundled.map((d) => [d, readJson(path.join(root, 'node_modules', d, 'package.json')).version])) },
    bundleDependencies: [kernel.name, ...bundled],
  };
  fs.writeFileSync(path.join(stage, 'package.json'), JSON.stringify(pkg, null, 2));
  for (const f of ['README.md']) if (fs.existsSync(path.join(sdkDir, f))) fs.copyFileSync(path.join(sdkDir, f), path.join(stage, f));
  fs.copyFileSync(path.join(root, 'LICENSE'), path.join(stage, 'LICENSE'));
  fs.mkdirSync(outDir, { recursive: true });
  const out = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', outDir], { cwd: stage, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
  console.log(path.join(outDir, out[0].filename));
} finally {
  fs.rmSync(stage, { recursive: true, force: true });
}
