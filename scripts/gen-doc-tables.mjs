#!/usr/bin/env node
// Regenerates the configuration table of docs/configuration.md and the error table of docs/api/errors.md
// (between their marker comments) from config's configTable() (ENV_VARS and the plugin options they set)
// and core's ERROR_CATALOGUE. Run: node --conditions=quire-source --import tsx scripts/gen-doc-tables.mjs
import fs from 'node:fs';
import { configTable } from '@quire/config';
import { ERROR_CATALOGUE } from '@quire/core';

const errs = ['| Code | HTTP | When |', '|---|---|---|', ...Object.entries(ERROR_CATALOGUE).map(([c, e]) => `| \`${c}\` | ${e.status} | ${e.description} |`)].join('\n');

function put(relative, name, table) {
  const file = new URL(`../${relative}`, import.meta.url);
  const text = fs.readFileSync(file, 'utf8');
  const re = new RegExp(`(<!-- ${name}:start -->)[\\s\\S]*?(<!-- ${name}:end -->)`);
  if (!re.test(text)) throw new Error(`${relative} has no ${name} markers`);
  fs.writeFileSync(file, text.replace(re, `$1\n${table}\n$2`));
}
put('docs/configuration.md', 'config', configTable());
put('docs/api/errors.md', 'errors', errs);
console.log('docs/configuration.md and docs/api/errors.md tables updated');
