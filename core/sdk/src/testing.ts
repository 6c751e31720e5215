/**
 * Test helpers: a plugin made the way the host makes it (options parsed by its schema and frozen, only the
 * shared settings it declared, a reader's formats from its declarations), without a host.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { pluginContext } from '@quire/core';
import type { ContextInit, CreatedInstance, ParsedDocument, PluginDefinition, PluginInstance, PluginKind, ReadOptions, ReaderPlugin, SharedKey } from '@quire/core';

/** The instance of a plugin, created with a context like the host's (see pluginContext; `init.options` are checked by the plugin's schema). */
export async function createPlugin<K extends PluginKind, O, S extends SharedKey>(def: PluginDefinition<K, O, S>, init: ContextInit = {}): Promise<PluginInstance<K>> {
  const instance = (await def.create(pluginContext(def, init))) as CreatedInstance<K>;
  if (def.kind === 'reader' && def.formats?.length) (instance as unknown as ReaderPlugin).formats = def.formats.map((d) => d.format);
  return instance as PluginInstance<K>;
}

/** A file read by a reader plugin as the host would hand it over (OCR off unless `options.ocr` says otherwise). */
export async function readWith(def: PluginDefinition<'reader'>, file: string, options: Partial<ReadOptions> & { init?: ContextInit; format?: string } = {}): Promise<ParsedDocument> {
  const reader = await createPlugin(def, options.init);
  const { init: _i, format, ...read } = options;
  const stat = await fs.stat(file);
  const name = path.basename(file);
  try {
    return await reader.read(
      { path: file, name, format: format ?? reader.formats[0] ?? path.extname(name).slice(1), size: stat.size, documentId: 'test-document' },
      { ocr: { enabled: false, language: 'eng' }, ...read },
    );
  } finally {
    await reader.close?.();
  }
}
