// The test files of a run on the build as plain JavaScript, so that their processes need no TypeScript loader.
// Under tsx every module a test process loads (the whole server graph, some thousand files) passes through
// its loader hooks, which Node 20 runs in a thread of their own, one message each way per module: about
// 1.5 s of CPU per test file on top of the ~2 s the graph costs without them (measured on the import of
// test/helpers/server.ts). Here each TypeScript test file is bundled by esbuild (which tsx uses too, with the
// same transform: no tsconfig, the node version as target) with the TypeScript test helpers it imports into
// one .mjs file; everything else stays an import of its own: packages (the workspace packages from dist/),
// node's modules, and the .mjs/.js files next to the tests (by their absolute path). In each TypeScript
// file, import.meta.url, .dirname and .filename are its own (the source's), so that fixtures, the repository
// root and sibling files are found where they are.
//
// A test file that imports a package's TypeScript sources (`../src/x.js`, an internal module the package does
// not export) imports the build of that module instead (`../dist/x.js`, compiled from it; the run bundles only
// when the build is current): one module with what the package's name loads, as in production. A file that
// imports other TypeScript outside the test directories (no build of it) is not bundled: it runs under tsx.
// Worker threads always get tsx (test/helpers/ts-loader.mjs): a test may start one on a .ts file.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { builtFile } from '../test/helpers/built-check.mjs';

const TS = /\.(ts|mts)$/;
/** a file of a test directory (test/, <workspace>/test/), where the bundles take TypeScript from */
const inTestDir = (root, file) => {
  const rel = path.relative(root, file);
  return !rel.startsWith('..') && rel.split(path.sep).includes('test');
};

/**
 * Bundles the TypeScript files among `files` (paths relative to root) into `outDir` (inside the repository's
 * node_modules, so that the bundles import packages as the sources do). Returns a map from each bundled
 * file (relative path) to its bundle's absolute path; the files left out run from their source.
 */
export async function bundleTestFiles(root, files, outDir) {
  const entries = files.filter((f) => TS.test(f));
  if (!entries.length) return new Map();
  // tsx's own esbuild (a dependency of tsx, not one of the repository's)
  const esbuild = createRequire(createRequire(import.meta.url).resolve('tsx'))('esbuild');
  const target = `node${process.versions.node.split('.')[0]}`;
  const plugin = {
    name: 'quire-test-files',
    setup(build) {
      // relative imports: TypeScript of the test directories is bundled; any other file stays an import of its
      // own (absolute path), so that a .mjs helper is one module, whatever imports it
      build.onResolve({ filter: /^\.\.?\// }, async (args) => {
        if (args.pluginData?.inner) return undefined;
        const r = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: { inner: true } });
        if (r.errors.length) return { errors: r.errors };
        if (TS.test(r.path) && !inTestDir(root, r.path)) {
          // a package's TypeScript source: the same module of its build, which is current here
          const built = builtFile(r.path);
          return built ? { path: built, external: true } : { path: r.path };
        }
        if (TS.test(r.path) || r.path.endsWith('.json')) return { path: r.path };
        return { path: r.path, external: true };
      });
      build.onLoad({ filter: TS }, async (args) => {
        const source = await fs.promises.readFile(args.path, 'utf8');
        const define = {
          'import.meta.url': JSON.stringify(pathToFileURL(args.path).href),
          'import.meta.dirname': JSON.stringify(path.dirname(args.path)),
          'import.meta.filename': JSON.stringify(args.path),
        };
        const out = await esbuild.transform(source, { loader: 'ts', target, sourcefile: args.path, define });
        return { contents: out.code, loader: 'js', resolveDir: path.dirname(args.path) };
      });
    },
  };
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: entries,
    outdir: outDir,
    outbase: root,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target,
    packages: 'external',
    metafile: true,
    write: true,
    logLevel: 'silent',
    plugins: [plugin],
  });
  const bundles = new Map();
  for (const [out, meta] of Object.entries(result.metafile.outputs)) {
    if (!meta.entryPoint) continue;
    // TypeScript from outside the test directories (a package's sources): run the file under tsx instead
    if (Object.keys(meta.inputs).some((i) => TS.test(i) && !inTestDir(root, path.resolve(root, i)))) continue;
    bundles.set(path.normalize(meta.entryPoint), path.resolve(root, out));
  }
  return bundles;
}
