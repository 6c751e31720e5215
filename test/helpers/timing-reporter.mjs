// node:test reporter used by scripts/test.mjs: one JSON line per top-level test or suite of each file
// ({file, name, ms}), from which the script prints the time of each test file.
export default async function* timingReporter(source) {
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const d = event.data;
    if (d.nesting !== 0 || !d.file) continue;
    yield `${JSON.stringify({ file: d.file, name: d.name, ms: Math.round(d.details?.duration_ms ?? 0), failed: event.type === 'test:fail' })}\n`;
  }
}
