/**
 * Renders one handlebars template (handlebars.ts) in an isolate of its own (core's runIsolated: heap and time
 * limits), so that a template looping over large sources costs this process, never the API's event loop.
 */
import { serveIsolated } from '@quire/core/isolate';
import { renderTemplate } from './handlebars.js';

serveIsolated((req: { prompt: string; context: Record<string, unknown> }) => renderTemplate(req.prompt, req.context));
