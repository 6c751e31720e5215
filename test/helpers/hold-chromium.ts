// Run as a child process by test/e2e/chromium-orphans.test.ts: starts Chromium the way the service
// (`pdf`: the pdf generator plugin, puppeteer) or the studio tests (`studio`: test/helpers/studio.ts,
// playwright) do, prints one line `{"browser":<pid>}` once the browser is up, then waits to be killed.
import { pluginContext } from '@quire/core';
import def from '@quire/plugin-generator-pdf';
import type { PdfGenerator } from '@quire/plugin-generator-pdf';
import { CHROMIUM, chromiumChildren, launchChromium } from './studio.js';

const how = process.argv[2];
if (how === 'pdf') {
  const g = (await def.create(pluginContext(def, { options: { chromium: CHROMIUM } }) as never)) as PdfGenerator;
  await g.generate({ format: 'pdf', document: { title: 'Held', citations: [], blocks: [{ type: 'paragraph', text: 'A browser held open.' }] } });
} else if (how === 'studio') {
  const browser = await launchChromium();
  await (await browser.newPage()).setContent('<p>held</p>');
} else {
  throw new Error(`usage: hold-chromium.ts pdf|studio (got ${how})`);
}
const [browser] = chromiumChildren();
process.stdout.write(`${JSON.stringify({ browser })}\n`);
setInterval(() => {}, 1 << 30);
