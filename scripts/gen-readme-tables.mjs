#!/usr/bin/env node
// Regenerates the configuration and error tables of README.md (between the marker comments)
// from config's configTable() (ENV_VARS and the plugin options they set) and core's ERROR_CATALOGUE. Run: node --conditions=quire-source --import tsx scripts/gen-readme-tables.mjs
import fs from 'node:fs';
import { configTable } from '@quire/config';
import { ERROR_CATALOGUE } from '@quire/core';

const file = new URL('../README.md', import.meta.url);
let readme = fs.readFileSync(file, 'utf8');
const cfg = configTable();
const errs = ['| Code | HTTP | When |', '|---|---|---|', ...Object.entries(ERROR_CATALOGUE).map(([c, e]) => `| \`${c}\` | ${e.status} | ${e.description} |`)].join('\n');
const put = (name, table) => {
  const re = new RegExp(`(<!-- ${name}:start -->)[\\s\\S]*?(<!-- ${name}:end -->)`);
  if (!re.test(readme)) throw new Error(`README has no ${name} markers`);
  readme = readme.replace(re, `$1\n${table}\n$2`);
};
put('config', cfg);
put('errors', errs);
fs.writeFileSync(file, readme);
console.log('README tables updated');
