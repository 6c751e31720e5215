/**
 * The `plugin` steps of a workflow (`{"type": "plugin", "plugin": "<kind>:<name>", "config": {...}}`): which kinds
 * a step runs and what their config is. An integration's config is its target (or a saved integration); an
 * extractor's is the fields to extract from the workflow's document.
 */
import { z } from 'zod';
import { errors } from '@quire/core';
import type { Owned } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import { FieldList } from '../extraction/fields.js';
import { checkNoSecrets, checkTargetRecipients, integrationPlugin, parseTarget } from './integrations.js';

/** An extractor step: the fields (as in an extraction request), optional instructions, the document (default: the workflow's). */
export const ExtractorStepConfig = z.strictObject({
  document_id: z.string().max(200).optional(),
  fields: FieldList,
  instructions: z.string().max(10_000).optional(),
});

/** An extractor plugin step's config, checked (400 naming the field under `prefix`). */
export function parseExtractorStep(config: unknown, prefix: string): z.infer<typeof ExtractorStepConfig> {
  const r = ExtractorStepConfig.safeParse(config ?? {});
  if (!r.success) {
    const details = r.error.issues.map((i) => ({ field: [prefix, ...i.path.map(String)].join('.'), message: i.message }));
    throw errors.validation(`Invalid extractor step: ${details.map((d) => `${d.field} ${d.message}`).join('; ')}`, details);
  }
  return r.data;
}

/** The extractor plugin `name`, created on first use (a step may run one that is not the selected extractor). */
export async function extractorPlugin(rt: Pick<Engine, 'registry'>, name: string, field = 'plugin') {
  if (!rt.registry.has('extractor', name)) throw errors.validation(`${field}: no extractor plugin "${name}"; loaded: ${rt.registry.names('extractor').join(', ')}`, [{ field, message: 'unknown plugin' }]);
  return rt.registry.tryGet('extractor', name) ?? (await rt.registry.instantiate('extractor', name));
}

/**
 * The `plugin` steps of a definition, checked when it is saved: the plugin is loaded; an extractor's fields are
 * valid; for an integration, a target given in the step (not a saved integration) passes the plugin's schema and its recipients the owner's rules
 * (400 naming the field).
 */
export async function checkPluginSteps(rt: Pick<Engine, 'registry' | 'store'>, owner: Owned, def: { steps: { type: string; plugin?: string; config?: Record<string, unknown> }[] }): Promise<void> {
  for (const [i, s] of def.steps.entries()) {
    if (s.type !== 'plugin' || !s.plugin) continue;
    const [kind, name] = s.plugin.split(':') as [string, string];
    if (kind === 'extractor') {
      if (!rt.registry.has('extractor', name)) throw errors.validation(`definition.steps.${i}.plugin: no extractor plugin "${name}"; loaded: ${rt.registry.names('extractor').join(', ')}`, [{ field: `definition.steps.${i}.plugin`, message: 'unknown plugin' }]);
      parseExtractorStep(s.config, `definition.steps.${i}.config`);
      continue;
    }
    const plugin = integrationPlugin(rt, name, `definition.steps.${i}.plugin`);
    const { integration_id, template: _t, subject: _s, ...given } = s.config ?? {};
    if (integration_id) continue;
    checkNoSecrets(plugin, given, s.plugin, `definition.steps.${i}.config`);
    const target = parseTarget(plugin, given, s.plugin, `definition.steps.${i}.config`);
    await checkTargetRecipients(rt.store, owner, plugin, target);
  }
}
