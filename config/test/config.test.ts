import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, ENV_VARS, PLUGIN_ENV, configTable, loadConfig } from '@quire/config';
import { ERROR_CATALOGUE } from '@quire/core';

const root = path.resolve(import.meta.dirname, '../..');

test('defaults need nothing configured and are frozen', () => {
  const c = loadConfig({});
  assert.equal(c.port, 8080);
  assert.equal(c.plugins.selected.transport, 'inprocess');
  assert.equal(c.limits.uploadBytes, 100 * 1024 * 1024);
  assert.ok(Object.isFrozen(c) && Object.isFrozen(c.limits));
  assert.throws(() => ((c as any).port = 1));
});

test('QUIRE_OCR_ENGINE picks the ocr plugin (auto unless set)', () => {
  assert.equal(loadConfig({}).plugins.selected.ocr, 'auto');
  assert.equal(loadConfig({ QUIRE_OCR_ENGINE: '' }).plugins.selected.ocr, 'auto');
  assert.equal(loadConfig({ QUIRE_OCR_ENGINE: 'ppocr' }).plugins.selected.ocr, 'ppocr');
});

test('a bad value stops start-up with one message naming the variable', () => {
  assert.throws(() => loadConfig({ PORT: 'eighty' }), (e: unknown) => e instanceof ConfigError && /PORT/.test((e as Error).message));
  assert.throws(() => loadConfig({ QUIRE_DB_URL: 'postgres://x' }), /QUIRE_DB_URL/);
  assert.throws(() => loadConfig({ QUIRE_BOOTSTRAP_API_KEY: 'abc' }), /QUIRE_BOOTSTRAP_API_KEY/);
  assert.throws(() => loadConfig({ QUIRE_VECTOR_STORE: 'weaviate' }), /QUIRE_WEAVIATE_URL/);
  assert.equal(loadConfig({ QUIRE_QUEUE_URL: 'amqp://guest:guest@127.0.0.1:5672' }).plugins.selected.transport, 'rabbitmq');
});

test('variables that configure a plugin become its options, only when set (the plugin has the defaults)', () => {
  const none = loadConfig({});
  assert.deepEqual(none.plugins.options, {});
  assert.deepEqual(none.plugins.sources, {});
  const c = loadConfig({
    QUIRE_DB_URL: 'mysql://u:p@db:3306/quire',
    QUIRE_QUEUE_URL: 'amqp://guest:guest@mq:5672',
    QUIRE_QUEUE_PREFIX: 'other',
    QUIRE_PDF_WORKERS: '3',
    QUIRE_PDF_DEBUG: '1',
    QUIRE_TESSERACT_PATH: '/opt/tesseract',
    QUIRE_TESSERACT_PSM: '6',
    QUIRE_SOFFICE_PATH: '/opt/soffice',
    QUIRE_VECTOR_NO_SIMD: '1',
    QUIRE_VECTOR_LAYOUT: 'rows',
    QUIRE_WEAVIATE_URL: 'http://weaviate:8080',
    QUIRE_WEAVIATE_API_KEY: 'wk',
    QUIRE_EMBEDDINGS_BASE_URL: 'http://e:11434/v1',
    QUIRE_EMBEDDINGS_MODEL: 'nomic',
    QUIRE_EMBEDDINGS_API_KEY: 'ek',
    QUIRE_LLM_BASE_URL: 'http://l/v1',
    QUIRE_LLM_MODEL: 'm',
    QUIRE_LLM_API_KEY: 'lk',
    QUIRE_LLM_TIMEOUT_MS: '30000',
    QUIRE_LLM_MAX_ATTEMPTS: '2',
    QUIRE_CHROMIUM_PATH: '/opt/chromium',
    QUIRE_SMTP_HOST: 'smtp.example',
    QUIRE_SMTP_PORT: '465',
    QUIRE_SMTP_USER: 'mailer',
    QUIRE_SMTP_PASSWORD: 'pw',
    QUIRE_SMTP_FROM: 'quire@example.com',
  });
  assert.deepEqual(c.plugins.options, {
    'store:typeorm': { url: 'mysql://u:p@db:3306/quire' },
    'transport:rabbitmq': { url: 'amqp://guest:guest@mq:5672', prefix: 'other' },
    'reader:pdf': { workers: 3, debug: true },
    'reader:pdf-poppler': { processes: 3 },
    'ocr:tesseract': { binary: '/opt/tesseract', psm: '6' },
    'reader:office': { soffice: '/opt/soffice' },
    'reader:slides': { soffice: '/opt/soffice' },
    'vector-store:embedded': { simd: false, layout: 'rows' },
    'vector-store:weaviate': { url: 'http://weaviate:8080', apiKey: 'wk' },
    'embedder:openai': { baseUrl: 'http://e:11434/v1', model: 'nomic', apiKey: 'ek' },
    'llm:openai': { baseUrl: 'http://l/v1', model: 'm', apiKey: 'lk', timeoutMs: 30000, maxAttempts: 2 },
    'generator:pdf': { chromium: '/opt/chromium' },
    'integration:email': { host: 'smtp.example', port: 465, user: 'mailer', password: 'pw', from: 'quire@example.com' },
  });
  assert.equal(c.plugins.sources['reader:pdf.workers'], 'QUIRE_PDF_WORKERS');
  assert.equal(Object.keys(c.plugins.sources).length, PLUGIN_ENV.length);
  // the application keeps the fields it uses itself
  assert.equal(c.db.url, 'mysql://u:p@db:3306/quire');
  assert.equal(c.llm.baseUrl, 'http://l/v1');
  assert.equal(c.queue.prefix, 'other');
  assert.equal(loadConfig({ QUIRE_PDF_DEBUG: '0', QUIRE_VECTOR_NO_SIMD: 'no' }).plugins.options['reader:pdf']?.debug, false);
  assert.throws(() => loadConfig({ QUIRE_PDF_WORKERS: 'four' }), /QUIRE_PDF_WORKERS \(plugin reader:pdf option workers\): expected an integer/);
  assert.throws(() => loadConfig({ QUIRE_SMTP_PORT: 'smtp' }), /QUIRE_SMTP_PORT \(plugin integration:email option port\): expected an integer/);
  assert.throws(() => loadConfig({ QUIRE_PDF_DEBUG: 'maybe' }), /QUIRE_PDF_DEBUG/);
  assert.throws(() => loadConfig({ QUIRE_VECTOR_NO_SIMD: 'maybe' }), /QUIRE_VECTOR_NO_SIMD/);
});

test('the embedded store reads its rows by column for the local embedder and by row for another, unless QUIRE_VECTOR_LAYOUT says', () => {
  const layout = (env: Record<string, string>) => loadConfig(env).plugins.options['vector-store:embedded']?.layout;
  assert.equal(layout({}), undefined, 'the plugin default (columns)');
  const openai = { QUIRE_EMBEDDER: 'openai', QUIRE_EMBEDDINGS_BASE_URL: 'http://127.0.0.1:9/v1' };
  assert.equal(layout(openai), 'rows');
  assert.equal(layout({ ...openai, QUIRE_VECTOR_LAYOUT: 'columns' }), 'columns');
  assert.equal(layout({ QUIRE_VECTOR_LAYOUT: 'rows' }), 'rows');
  assert.equal(layout({ ...openai, QUIRE_PLUGIN_OPTIONS: JSON.stringify({ 'vector-store:embedded': { layout: 'columns' } }) }), 'columns');
});

test('QUIRE_PLUGIN_OPTIONS sets any plugin option; a dedicated variable wins', () => {
  const c = loadConfig({ QUIRE_PLUGIN_OPTIONS: '{"reader:pdf": {"workers": 2, "ocrDpi": 200}, "reader:markdown": {"strict": true}}', QUIRE_PDF_WORKERS: '5' });
  assert.deepEqual(c.plugins.options['reader:pdf'], { workers: 5, ocrDpi: 200 });
  assert.deepEqual(c.plugins.options['reader:markdown'], { strict: true });
  assert.equal(c.plugins.sources['reader:pdf.ocrDpi'], 'QUIRE_PLUGIN_OPTIONS');
  assert.equal(c.plugins.sources['reader:pdf.workers'], 'QUIRE_PDF_WORKERS');
  assert.ok(Object.isFrozen(c.plugins.options['reader:pdf']));
  assert.throws(() => loadConfig({ QUIRE_PLUGIN_OPTIONS: '{workers: 2}' }), /QUIRE_PLUGIN_OPTIONS is not JSON/);
  assert.throws(() => loadConfig({ QUIRE_PLUGIN_OPTIONS: '{"reader:pdf": 2}' }), /QUIRE_PLUGIN_OPTIONS must be a JSON object of option objects/);
  assert.throws(() => loadConfig({ QUIRE_PLUGIN_OPTIONS: '{"pdf": {}}' }), /QUIRE_PLUGIN_OPTIONS \(plugins\.options\.pdf\)/);
});

test('QUIRE_TRUST_PROXY is config.http.trustProxy', () => {
  assert.equal(loadConfig({}).http.trustProxy, false);
  assert.equal(loadConfig({ QUIRE_TRUST_PROXY: 'true' }).http.trustProxy, true);
  assert.equal(loadConfig({ QUIRE_TRUST_PROXY: '1' }).http.trustProxy, true);
  assert.throws(() => loadConfig({ QUIRE_TRUST_PROXY: 'sometimes' }), /QUIRE_TRUST_PROXY \(http\.trustProxy\)/);
});

test('every variable of PLUGIN_ENV is documented', () => {
  for (const p of PLUGIN_ENV) assert.ok(ENV_VARS.some((v) => v.name === p.env), `${p.env} is not in ENV_VARS`);
});

test('docs/configuration.md documents every environment variable and docs/api/errors.md every error code; the README points at both', () => {
  const configuration = fs.readFileSync(path.join(root, 'docs/configuration.md'), 'utf8');
  const table = configuration.match(/<!-- config:start -->\n([\s\S]*?)\n<!-- config:end -->/)?.[1];
  assert.equal(table, configTable(), 'the configuration table is not current: node --conditions=quire-source --import tsx scripts/gen-doc-tables.mjs');
  for (const v of ENV_VARS) assert.ok(configuration.includes(`\`${v.name}\``), `docs/configuration.md lacks ${v.name}`);
  const errorsDoc = fs.readFileSync(path.join(root, 'docs/api/errors.md'), 'utf8');
  for (const code of Object.keys(ERROR_CATALOGUE)) assert.ok(errorsDoc.includes(`| \`${code}\` |`), `docs/api/errors.md lacks error code ${code}`);
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  assert.ok(readme.includes('docs/configuration.md') && readme.includes('docs/api/errors.md'));
});

test('unknown QUIRE_* variables are named with the closest known one; test and bench variables are not', async () => {
  const { unknownVariables, unknownVariableWarnings } = await import('@quire/config');
  const env = { QUIRE_DATA_DIRR: '/x', QUIRE_OCR_LANGAUGE: 'deu', QUIRE_SOMETHING_ELSE_ENTIRELY: '1', QUIRE_DB_URL: 'sqlite:///x', QUIRE_TEST_MYSQL_URL: 'x', QUIRE_CORPUS: '/c', HOME: '/root' };
  assert.deepEqual(unknownVariables(env), [
    { name: 'QUIRE_DATA_DIRR', closest: 'QUIRE_DATA_DIR' },
    { name: 'QUIRE_OCR_LANGAUGE', closest: 'QUIRE_OCR_LANGUAGE' },
    { name: 'QUIRE_SOMETHING_ELSE_ENTIRELY', closest: null },
  ]);
  assert.match(unknownVariableWarnings(env)[0]!, /QUIRE_DATA_DIRR is not a Quire setting .*did you mean QUIRE_DATA_DIR\?/);
  assert.deepEqual(unknownVariables({}), []);
});

test('every QUIRE_* variable the code reads is a known one (none would be warned about)', async () => {
  const { knownVariables } = await import('@quire/config');
  const known = knownVariables();
  const dirs = ['core', 'plugins'].flatMap((d) => fs.readdirSync(path.join(root, d)).map((p) => path.join(root, d, p, 'src'))).concat(['server/src', 'runner/src', 'config/src'].map((d) => path.join(root, d)));
  const unknown = new Set<string>();
  const walk = (dir: string) => {
    if (!fs.existsSync(dir)) return;
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(ts|tsx|mts)$/.test(e.name)) for (const m of fs.readFileSync(p, 'utf8').matchAll(/(?:env\.|env\[['"`]|['"`])(QUIRE_[A-Z0-9_]*[A-Z0-9])\b/g)) if (!known.has(m[1]!)) unknown.add(`${m[1]} (${path.relative(root, p)})`);
    }
  };
  for (const d of dirs) walk(d);
  // read as env.QUIRE_X, env['QUIRE_X'] or named in a string; names that are prefixes of a family
  // (QUIRE_CREDITS_<PLAN>) end with an underscore and are not matched
  assert.deepEqual([...unknown], []);
});

test('a boolean variable with a bad value lists the accepted values', () => {
  assert.throws(() => loadConfig({ QUIRE_RUN_STAGES: 'nope' }), /QUIRE_RUN_STAGES.*expected true, false, 1, 0, yes or no, got "nope"/);
});

test('QUIRE_RUN_STAGES takes stage names: ocr alone makes a dedicated OCR worker', () => {
  assert.deepEqual(loadConfig({ QUIRE_RUN_STAGES: 'ocr' }).queue.runStages, ['ocr']);
  assert.deepEqual(loadConfig({ QUIRE_RUN_STAGES: 'fetch, read,chunk,index' }).queue.runStages, ['fetch', 'read', 'chunk', 'index']);
  assert.equal(loadConfig({ QUIRE_RUN_STAGES: 'false' }).queue.runStages, false);
  assert.equal(loadConfig({}).queue.runStages, true);
  // an unknown name is refused, with the names accepted
  assert.throws(() => loadConfig({ QUIRE_RUN_STAGES: 'read,ocrr' }), /QUIRE_RUN_STAGES.*stage names joined with commas, from: fetch, read, ocr, chunk, index.*\(unknown: ocrr\)/);
});

test('the engine takes the OCR language from the configuration (QUIRE_OCR_LANGUAGE), never a literal of its own', () => {
  const literal: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts') && /language:\s*['"][a-z_+]+['"]/.test(fs.readFileSync(p, 'utf8'))) literal.push(path.relative(root, p));
    }
  };
  walk(path.join(root, 'core/engine/src'));
  assert.deepEqual(literal, []);
  assert.equal(loadConfig({ QUIRE_OCR_LANGUAGE: 'deu' }).ocr.language, 'deu');
});
