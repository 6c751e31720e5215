/**
 * The registry of a process and the store alone (`openStore`), apart from the Engine: the account commands
 * (`quire keys`, `quire users`, commands.ts) load this module and not the engine's pipelines, services and
 * plugin list, which they never use (about a quarter of a second of CPU per command).
 */
import { PluginRegistry, mkdirPrivate, sharedSettings } from '@quire/core';
import type { Logger, Store } from '@quire/core';
import type { QuireConfig } from '@quire/config';
import { outboundHttp } from './workflows/send.js';

/** The registry of a process: the plugins get their own options and the shared settings they ask for, never the whole config. */
export function pluginRegistry(config: Readonly<QuireConfig>, logger: Logger): PluginRegistry {
  const selected: Record<string, string> = { ...config.plugins.selected };
  if (config.llm.baseUrl) selected.llm = 'openai';
  return new PluginRegistry({ dataDir: config.dataDir, logger, selected, options: config.plugins.options, optionSources: config.plugins.sources, shared: sharedSettings(config), http: outboundHttp({ allowedHosts: config.network.allowedHosts, timeoutMs: config.webhooks.timeoutMs }) });
}

/**
 * The store alone, for commands that only read and write accounts (`quire keys`, `quire users`): the
 * selected store plugin (a third-party one from QUIRE_PLUGINS too) with its migrations, and no readers, OCR,
 * queue or pipelines, so such a command answers in about a second.
 */
export async function openStore(config: Readonly<QuireConfig>, logger: Logger): Promise<{ store: Store; close: () => Promise<void> }> {
  await mkdirPrivate(config.dataDir);
  const registry = pluginRegistry(config, logger);
  try {
    await registry.load('@quire/plugin-store-typeorm', import.meta.dirname);
    for (const spec of config.plugins.extra) await registry.load(spec, process.cwd());
    const store = await registry.instantiate('store', config.plugins.selected.store ?? 'typeorm');
    return { store, close: () => registry.close() };
  } catch (e) {
    await registry.close().catch(() => {});
    throw e;
  }
}
