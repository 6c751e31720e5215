#!/usr/bin/env node
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, unknownVariableWarnings } from '@quire/config';
import { runParse } from './parse.js';

const USAGE = 'usage: quire-runner parse <folder> --out <dir> [--config <file.json>] [--concurrency N]';

function bar(done: number, total: number): string {
  const width = 28;
  const filled = total ? Math.round((done / total) * width) : width;
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`;
}

async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (cmd === 'help' || cmd === '--help' || cmd === '-h') {
    console.log(USAGE);
    return 0;
  }
  if (cmd !== 'parse') {
    console.error(USAGE);
    return 2;
  }
  const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { out: { type: 'string' }, config: { type: 'string' }, concurrency: { type: 'string' } } });
  const folder = positionals[0];
  if (!folder || !values.out) {
    console.error(USAGE);
    return 2;
  }
  if (!fs.existsSync(folder) || !fs.statSync(folder).isDirectory()) {
    console.error(`quire-runner: ${folder} is not a folder`);
    return 2;
  }
  if (path.resolve(values.out) === path.resolve(folder)) {
    console.error('quire-runner: --out must be another folder than the one parsed');
    return 2;
  }
  let parse: unknown = {};
  if (values.config) {
    try {
      parse = JSON.parse(fs.readFileSync(values.config, 'utf8'));
    } catch (e) {
      console.error(`quire-runner: cannot read config ${values.config}: ${(e as Error).message}`);
      return 2;
    }
  }
  const concurrency = values.concurrency ? Number(values.concurrency) : 2;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) {
    console.error('quire-runner: --concurrency must be a whole number from 1 to 64');
    return 2;
  }
  let config;
  try {
    config = loadConfig({ ...process.env, QUIRE_DATA_DIR: process.env.QUIRE_DATA_DIR ?? path.join(values.out, '.quire') });
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
      return 2;
    }
    throw e;
  }
  for (const w of unknownVariableWarnings()) console.error(`quire-runner: warning: ${w}`);
  const tty = process.stderr.isTTY;
  // Ctrl-C or a TERM stops the run cleanly (the files being parsed are cancelled, the scratch folder removed);
  // a second one exits at once, and the next run on this output removes what is left
  const stop = new AbortController();
  const exitCode = (sig: NodeJS.Signals) => (sig === 'SIGINT' ? 130 : 143);
  let stoppedBy: NodeJS.Signals = 'SIGINT';
  const onSignal = (sig: NodeJS.Signals) => {
    if (stop.signal.aborted) process.exit(exitCode(sig));
    stoppedBy = sig;
    stop.abort();
    console.error(`\nquire-runner: ${sig}: stopping (the files being parsed are cancelled; run again to resume)`);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const summary = await runParse({
    signal: stop.signal,
    folder: path.resolve(folder),
    out: path.resolve(values.out),
    config,
    parse,
    concurrency,
    onProgress: (done, total, file, status) => {
      if (tty) process.stderr.write(`\r${bar(done, total)} ${status.padEnd(7)} ${file.slice(-50).padEnd(50)}`);
      else process.stderr.write(`${bar(done, total)} ${status} ${file}\n`);
    },
  });
  if (tty) process.stderr.write('\n');
  console.log(
    `parsed ${summary.parsed}, skipped ${summary.skipped} (already done), unsupported ${summary.unsupported.length}, failed ${summary.failed.length}, not read ${summary.ignored.length}; ${summary.pages} pages in ${summary.seconds.toFixed(1)} s`,
  );
  for (const u of summary.unsupported) console.log(`  unsupported: ${u}`);
  for (const i of summary.ignored) console.log(`  not read: ${i.file}: ${i.reason}`);
  for (const f of summary.failed) console.log(`  FAILED: ${f.file}: ${f.error}`);
  if (summary.interrupted) {
    console.error('quire-runner: interrupted: run the same command again to parse the files left');
    return exitCode(stoppedBy);
  }
  if (summary.failed.length) return 1;
  // a run that found entries but parsed none (and had none already done) is not a success
  const found = summary.total + summary.ignored.length;
  if (!found) {
    console.error(`quire-runner: no files found under ${folder} (names starting with a dot are left out)`);
    return 1;
  }
  if (summary.parsed + summary.skipped === 0) {
    console.error(`quire-runner: nothing was parsed: ${found} ${found === 1 ? 'entry' : 'entries'} found under ${folder}, none could be read (see above)`);
    return 1;
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    console.error(`quire-runner: ${(e as Error).message}`);
    process.exit(1);
  },
);
