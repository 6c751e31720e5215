import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

/** Every file below `dir` (relative paths); files that vanish while listing are passed over. */
export function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => {
      try {
        return fs.statSync(path.join(dir, f)).isFile();
      } catch {
        return false;
      }
    });
}

/** The spec's error body {error: {code, message, details}} with this code, and no stack trace in it. */
export function errorBody(body: any, code: string): void {
  assert.equal(typeof body?.error, 'object', `error body: ${JSON.stringify(body)}`);
  assert.equal(body.error.code, code, JSON.stringify(body));
  assert.equal(typeof body.error.message, 'string');
  assert.ok('details' in body.error);
  assert.ok(!/\n\s+at /.test(JSON.stringify(body)), 'no stack trace');
}
