import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import semver from 'semver';
import type { z } from 'zod';
import { PLUGIN_KINDS, SHARED_DEFAULTS, USABLE_KINDS } from './kinds.js';
import type { HttpClient, PluginContext, PluginDefinition, PluginInstance, PluginKind, PluginManifest, ReaderPlugin, SharedKey, SharedSettings, UsableKind } from './kinds.js';
import type { Logger } from '../util/logger.js';
import { silentLogger } from '../util/logger.js';
import { errors } from '../errors/index.js';
import { SUPPORTED_FORMATS, detectFormat as detectWith } from '../formats.js';
import type { DetectedFormat, FormatDeclaration, FormatFamily } from '../formats.js';

export const CORE_VERSION = '1.0.0';

/** Kinds where exactly one plugin is active (chosen by config); for the others every registered plugin is active. */
export const SINGLE_KINDS: PluginKind[] = ['store', 'storage', 'transport', 'chunker', 'embedder', 'vector-store', 'extractor', 'answerer', 'llm', 'ocr'];

export class PluginError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PluginError';
  }
}

interface Entry {
  def: PluginDefinition;
  source: string;
  /** where the module was loaded from (load()), so another thread can load the same plugin */
  origin?: PluginOrigin;
  instance?: unknown;
  /** order of registration: of two readers of a format, the later one reads it */
  seq: number;
  /** the options, parsed and frozen when they were given at registration */
  options?: unknown;
}

/** How a plugin was loaded: the spec given to load() and the folder it resolved from. */
export interface PluginOrigin {
  spec: string;
  baseDir: string;
}

export interface RegistryOptions {
  dataDir: string;
  logger?: Logger;
  /** active plugin name per single-choice kind */
  selected?: Partial<Record<PluginKind, string>>;
  /** options per plugin, keyed `<kind>:<name>`; each plugin's `options` schema validates its own */
  options?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** where options came from, keyed `<kind>:<name>.<option>` (e.g. QUIRE_PDF_WORKERS): named in option errors */
  optionSources?: Readonly<Record<string, string>>;
  /** the host's shared settings (see SharedSettings; sharedSettings(config) picks them from a config); missing ones are SHARED_DEFAULTS */
  shared?: Partial<SharedSettings>;
  /** the host's outbound HTTP (ctx.http); without it a plugin's request fails with SERVICE_UNAVAILABLE */
  http?: HttpClient;
  /** format → reader name chosen by another registry (a reader isolate follows its host's choice) */
  readers?: Readonly<Record<string, string>>;
}

/** What a registry in another process needs to make the same plugins (plain data). */
export interface RegistrySettings {
  dataDir: string;
  selected: Partial<Record<PluginKind, string>>;
  options: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  optionSources: Readonly<Record<string, string>>;
  shared: SharedSettings;
  /** format → reader name, when another registry chose (see RegistryOptions.readers) */
  readers?: Readonly<Record<string, string>>;
}

/** The shared settings found in a configuration object (each key is its path there), the rest SHARED_DEFAULTS. */
export function sharedSettings(config?: Readonly<Record<string, any>>): SharedSettings {
  const out: Record<string, unknown> = { ...SHARED_DEFAULTS };
  for (const key of Object.keys(SHARED_DEFAULTS) as SharedKey[]) {
    const v = key.split('.').reduce<any>((o, k) => o?.[k], config);
    if (v !== undefined && typeof v === typeof SHARED_DEFAULTS[key]) out[key] = v;
  }
  return out as unknown as SharedSettings;
}

/** What a plugin's context is made from (pluginContext); everything has a default, for tests. */
export interface ContextInit {
  /** the plugin's raw options (validated by its schema here) */
  options?: unknown;
  shared?: Partial<SharedSettings>;
  dataDir?: string;
  logger?: Logger;
  optionSources?: Readonly<Record<string, string>>;
  get?: PluginContext['get'];
  tryGet?: PluginContext['tryGet'];
  /** the active plugin of a kind the plugin declared in `uses` (ctx.ocr, ctx.use), or the one of that name */
  use?: <K extends UsableKind>(kind: K, name?: string) => PluginInstance<K> | undefined;
  /** the host's reader of a format the plugin declared in `uses` (ctx.readerFor) */
  readerFor?: (format: string) => ReaderPlugin | undefined;
  http?: HttpClient;
}

/** A `uses` entry: what it names (`ocr`, `reader:pdf`) and whether the plugin works without it. */
export function parseUse(use: string): { target: string; optional: boolean } {
  const optional = use.endsWith('?');
  return { target: optional ? use.slice(0, -1) : use, optional };
}

const USE_PATTERN = new RegExp(`^(?:(?:${USABLE_KINDS.join('|')})(?::[a-z0-9][a-z0-9._-]{0,63})?|reader:[a-z0-9][a-z0-9._+-]{0,31})\\??$`);

/** A `uses` target naming a plugin of a kind (`ocr:tesseract`; not `reader:<format>`): its kind and name. */
export function namedUse(target: string): { kind: UsableKind; name: string } | null {
  const i = target.indexOf(':');
  if (i < 0) return null;
  const kind = target.slice(0, i);
  return kind !== 'reader' && (USABLE_KINDS as readonly string[]).includes(kind) ? { kind: kind as UsableKind, name: target.slice(i + 1) } : null;
}

const noHttp: HttpClient = async (url) => {
  throw errors.unavailable(`No outbound HTTP in this context (${url.split('?')[0]}): the host gives plugins ctx.http`);
};

/**
 * The context a plugin is created with, as the registry makes it: its options validated by its schema
 * (PluginError naming the plugin and the option) and frozen, and only the shared settings it declared.
 * Tests create plugins with `def.create(pluginContext(def, { options }))`.
 */
export function pluginContext<O, S extends SharedKey>(def: PluginDefinition<PluginKind, O, S>, init: ContextInit = {}): PluginContext<O, S> {
  return contextOf(def, parseOptions(def, init.options, init.optionSources), { ...SHARED_DEFAULTS, ...init.shared }, init);
}

function contextOf<O, S extends SharedKey>(def: PluginDefinition<PluginKind, O, S>, options: unknown, shared: SharedSettings, init: ContextInit): PluginContext<O, S> {
  const key = `${def.kind}:${def.name}`;
  const logger = init.logger ?? silentLogger;
  return {
    options: options as Readonly<O>,
    shared: Object.freeze(Object.fromEntries((def.shared ?? []).map((k) => [k, shared[k]]))) as Pick<SharedSettings, S>,
    dataDir: init.dataDir ?? process.cwd(),
    logger: logger.child({ plugin: key }),
    get: init.get ?? ((k) => {
      throw new PluginError(`no active ${k} plugin`);
    }),
    tryGet: init.tryGet ?? (() => undefined),
    http: init.http ?? noHttp,
    get ocr() {
      declared('ocr');
      return use('ocr');
    },
    use(kind, name) {
      declared(name === undefined ? kind : `${kind}:${name}`);
      return use(kind, name);
    },
    readerFor(format) {
      declared(`reader:${format}`);
      return init.readerFor?.(format);
    },
  };
  // a test's context may give only tryGet: the active plugin of a kind is what it finds
  function use<K extends UsableKind>(kind: K, name?: string): PluginInstance<K> | undefined {
    return init.use ? init.use(kind, name) : init.tryGet?.(kind, name);
  }
  function declared(target: string): void {
    if (!(def.uses ?? []).some((u) => parseUse(u).target === target)) {
      throw new PluginError(`plugin ${key} uses ${target} without declaring it: add uses: ['${target}'] (or '${target}?' when it works without) to its definePlugin`);
    }
  }
}

/** A plugin's options parsed by its schema and deep-frozen (without a schema: as given, frozen). */
function parseOptions(def: PluginDefinition, raw: unknown, sources?: Readonly<Record<string, string>>): unknown {
  return def.options ? checkOptions(def.options, raw, `${def.kind}:${def.name}`, sources) : deepFreeze({ ...((raw as object) ?? {}) });
}

/**
 * Options parsed by a schema (defaults filled in) and deep-frozen. A PluginError names the plugin, each bad
 * or unknown option and, from `sources` (keyed `<plugin>.<option>`), the variable it came from. The registry
 * checks every plugin's options with it; a plugin's classes may use it for options given to them directly.
 */
export function checkOptions<O>(schema: z.ZodType<O>, raw: unknown, plugin: string, sources?: Readonly<Record<string, string>>): O {
  const parsed = schema.safeParse(raw ?? {});
  if (parsed.success) return deepFreeze(parsed.data);
  const problems = parsed.error.issues.flatMap((i) => {
    const at = (p: PropertyKey[]) => p.map(String).join('.');
    if (i.code === 'unrecognized_keys') return i.keys.map((k) => `unknown option "${at([...i.path, k])}"`);
    if (!i.path.length) return [`options: ${i.message}`];
    const from = sources?.[`${plugin}.${String(i.path[0])}`];
    return [`option "${at(i.path)}"${from ? ` (${from})` : ''}: ${i.message}`];
  });
  throw new PluginError(`invalid options of plugin ${plugin}: ${problems.join('; ')}`);
}

/** Freezes plain objects and arrays all the way down (class instances, e.g. an injected client, stay as they are). */
function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object' && !Object.isFrozen(o) && (Array.isArray(o) || [Object.prototype, null].includes(Object.getPrototypeOf(o)))) {
    Object.freeze(o);
    for (const v of Object.values(o as object)) deepFreeze(v);
  }
  return o;
}

const FORMAT_ID = /^[a-z0-9][a-z0-9._+-]{0,31}$/;
const HEAD_BYTES = 8192;

/** Checks a reader's format declarations at registration; a PluginError says what is wrong with which. */
function checkFormats(def: PluginDefinition, source: string): FormatDeclaration[] {
  const list = def.formats ?? [];
  const bad = (d: unknown, why: string) => new PluginError(`${source}: format ${JSON.stringify((d as FormatDeclaration)?.format ?? d)} of ${def.kind}:${def.name}: ${why}`);
  if (!Array.isArray(list)) throw new PluginError(`${source}: "formats" of ${def.kind}:${def.name} must be an array of format declarations`);
  if (list.length && def.kind !== 'reader') throw new PluginError(`${source}: only readers declare formats (${def.kind}:${def.name} does)`);
  const seen = new Set<string>();
  for (const d of list) {
    if (!d || typeof d.format !== 'string' || !FORMAT_ID.test(d.format)) throw bad(d, 'the format id must be lowercase letters, digits and . _ + - (at most 32)');
    if (seen.has(d.format)) throw bad(d, 'declared twice');
    seen.add(d.format);
    if (!Array.isArray(d.extensions) || !d.extensions.length || !d.extensions.every((e) => typeof e === 'string' && /^\.?[a-z0-9_+-]+$/i.test(e))) throw bad(d, 'extensions must be a non-empty list like [".md"]');
    if (typeof d.mime !== 'string' || !/^[a-z]+\/[\w.+-]+$/i.test(d.mime)) throw bad(d, 'mime must be a media type like text/markdown');
    if (d.family !== undefined && !['document', 'image', 'spreadsheet', 'presentation'].includes(d.family)) throw bad(d, 'family must be document, image, spreadsheet or presentation');
    const detect = d.detect ?? 'text';
    if (detect === 'builtin') {
      if (!SUPPORTED_FORMATS[d.format]) throw bad(d, `detect "builtin" is only for the built-in formats (${Object.keys(SUPPORTED_FORMATS).join(', ')})`);
    } else if (typeof detect === 'object' && detect) {
      if (!detect.magic && !detect.sniff) throw bad(d, 'detect needs magic or sniff');
      if (detect.sniff !== undefined && typeof detect.sniff !== 'function') throw bad(d, 'detect.sniff must be a function (head, name) => boolean');
      for (const m of detect.magic ?? []) {
        const len = typeof m?.bytes === 'string' ? m.bytes.length : Array.isArray(m?.bytes) && m.bytes.every((b) => Number.isInteger(b) && b >= 0 && b <= 255) ? m.bytes.length : -1;
        const offset = m?.offset ?? 0;
        if (len < 1 || !Number.isInteger(offset) || offset < 0 || offset + len > HEAD_BYTES) throw bad(d, `each magic needs bytes (numbers 0-255 or a string) within the first ${HEAD_BYTES} bytes`);
      }
    } else if (detect !== 'text') throw bad(d, 'detect must be "text", "builtin" or { magic, sniff }');
  }
  return list;
}

/** A format that an active reader reads, and which reader. */
export interface ReadableFormat {
  format: string;
  mime: string;
  family: FormatFamily;
  /** lowercase, with the dot */
  extensions: string[];
  reader: string;
}

/**
 * The one registry every plugin goes through, built-in or third-party. A later registration of the same
 * kind and name overrides the earlier one (so a third party can replace a built-in).
 */
export class PluginRegistry {
  private entries = new Map<string, Entry>();
  private readonly logger: Logger;
  private started = false;
  private seq = 0;
  private readonly services = new Map<string, { value: unknown; close?: () => Promise<void> }>();
  private readonly resolved: RegistrySettings;
  private readonly http?: HttpClient;

  constructor(opts: RegistryOptions) {
    this.logger = opts.logger ?? silentLogger;
    this.http = opts.http;
    this.resolved = {
      dataDir: opts.dataDir,
      selected: { ...(opts.selected ?? {}) },
      options: opts.options ?? {},
      optionSources: opts.optionSources ?? {},
      shared: { ...SHARED_DEFAULTS, ...opts.shared },
      ...(opts.readers ? { readers: { ...opts.readers } } : {}),
    };
  }

  /**
   * Registers a plugin definition after checking it against its manifest and core's version, its shared
   * settings and format declarations, and its options when some were given (a bad one throws PluginError).
   */
  register(def: PluginDefinition, manifest?: PluginManifest, source = 'inline', sdkRange?: string): void {
    if (!def || typeof def !== 'object' || typeof def.create !== 'function') throw new PluginError(`${source}: a plugin's default export must be definePlugin({kind, name, core, create})`);
    if (!PLUGIN_KINDS.includes(def.kind)) throw new PluginError(`${source}: unknown plugin kind "${def.kind}"; known kinds: ${PLUGIN_KINDS.join(', ')}`);
    if (manifest) {
      if (manifest.kind !== def.kind || manifest.name !== def.name) {
        throw new PluginError(`${source}: package.json "quire" says ${manifest.kind}:${manifest.name} but the module exports ${def.kind}:${def.name}`);
      }
    }
    // the SDK range: the definition's `core`, the package's peer dependency on the SDK, a legacy manifest's `core`
    const ranges = [...new Set([def.core, sdkRange, manifest?.core].filter((r): r is string => typeof r === 'string'))];
    if (!ranges.length) throw new PluginError(`${source}: plugin ${def.kind}:${def.name} says no SDK version: give definePlugin({ core: "^1" }) or peerDependencies {"@quire/sdk": "^1"}`);
    for (const range of ranges) {
      if (!semver.validRange(range) || !semver.satisfies(CORE_VERSION, range)) {
        throw new PluginError(`${source}: plugin ${def.kind}:${def.name} needs @quire/core (the SDK, @quire/sdk) "${range}", this is ${CORE_VERSION}`);
      }
    }
    const key = `${def.kind}:${def.name}`;
    const unknownShared = (def.shared ?? []).filter((k) => !(k in SHARED_DEFAULTS));
    if (unknownShared.length) throw new PluginError(`${source}: plugin ${key} asks for unknown shared settings ${unknownShared.join(', ')}; known: ${Object.keys(SHARED_DEFAULTS).join(', ')}`);
    const formats = checkFormats(def, source);
    if (def.uses !== undefined && (!Array.isArray(def.uses) || def.uses.some((u) => typeof u !== 'string' || !USE_PATTERN.test(u)))) {
      throw new PluginError(`${source}: "uses" of ${key} must list ${USABLE_KINDS.map((k) => `'${k}'`).join(', ')} 'reader:<format>' or '<kind>:<name>', each with an optional '?' (got ${JSON.stringify(def.uses)})`);
    }
    const given = this.resolved.options[key];
    const options = given === undefined ? undefined : parseOptions(def, given, this.resolved.optionSources);
    for (const d of formats) {
      const before = this.declaringReader(d.format);
      if (before && before !== def.name) this.logger.info({ plugin: key, format: d.format, before: `reader:${before}` }, 'reader takes over a format');
    }
    if (this.entries.has(key)) this.logger.info({ plugin: key, source }, 'plugin overrides an earlier registration');
    this.entries.set(key, { def, source, seq: ++this.seq, options });
  }

  /**
   * Loads a plugin by npm package name or by path (a folder with a package.json that has a "quire" field,
   * or a .js/.ts module). Relative paths resolve from `baseDir`.
   */
  async load(spec: string, baseDir = process.cwd()): Promise<PluginDefinition> {
    const isPath = spec.startsWith('.') || spec.startsWith('/') || /^[A-Za-z]:[\\/]/.test(spec);
    let pkg: any;
    let moduleUrl: string;
    if (isPath) {
      const abs = path.resolve(baseDir, spec);
      if (fs.existsSync(abs) && fs.statSync(abs).isDirectory()) {
        pkg = readJson(path.join(abs, 'package.json'));
        moduleUrl = pathToFileURL(path.join(abs, entryOf(pkg))).href;
      } else {
        moduleUrl = pathToFileURL(abs).href;
      }
    } else {
      const pkgPath = findPackageJson(spec, baseDir);
      if (pkgPath) pkg = readJson(pkgPath);
      moduleUrl = spec;
    }
    const manifest: PluginManifest | undefined = pkg?.quire;
    const sdkRange: string | undefined = pkg?.peerDependencies?.['@quire/sdk'];
    if (manifest && (!manifest.kind || !manifest.name || !manifest.core)) throw new PluginError(`${spec}: package.json "quire" field needs kind, name and core`);
    let mod: any;
    try {
      mod = await import(moduleUrl);
    } catch (e) {
      throw new PluginError(`cannot load plugin "${spec}": ${(e as Error).message}`);
    }
    const def: PluginDefinition = mod.default ?? mod.plugin;
    this.register(def, manifest, spec, sdkRange);
    const entry = this.entries.get(`${def.kind}:${def.name}`);
    if (entry) entry.origin = { spec, baseDir };
    return def;
  }

  /** Where kind:name was loaded from; undefined for plugins registered inline. */
  origin(kind: PluginKind, name: string): PluginOrigin | undefined {
    return this.entries.get(`${kind}:${name}`)?.origin;
  }

  /** What a registry in another process needs to make the same plugins: data dir, selection, options, shared settings. */
  get settings(): Readonly<RegistrySettings> {
    return this.resolved;
  }

  /**
   * A helper object that lives as long as the registry (made once by `make`, closed by close()), e.g. the
   * isolated reader threads.
   */
  service<T>(key: string, make: () => { value: T; close?: () => Promise<void> }): T {
    let s = this.services.get(key);
    if (!s) this.services.set(key, (s = make()));
    return s.value as T;
  }

  /**
   * Creates the active instances: the selected plugin of each single-choice kind and every plugin of the other
   * kinds; with `kinds`, only those of these kinds (and the plugins they name in their uses), for a process
   * that needs no more (the runner's parse).
   */
  async start(opts: { kinds?: readonly PluginKind[] } = {}): Promise<void> {
    for (const key of Object.keys(this.resolved.options)) {
      const from = Object.entries(this.resolved.optionSources).filter(([k]) => k.startsWith(`${key}.`)).map(([, v]) => v);
      // options of a plugin that is not loaded: only worth saying when someone wrote them for it
      if (!this.entries.has(key) && (!from.length || from.includes('QUIRE_PLUGIN_OPTIONS'))) this.logger.warn({ plugin: key }, 'options given for a plugin that is not loaded');
    }
    for (const kind of PLUGIN_KINDS) {
      if (opts.kinds && !opts.kinds.includes(kind)) continue;
      if (SINGLE_KINDS.includes(kind)) {
        const name = this.resolved.selected[kind];
        if (name) await this.instantiate(kind, name);
      } else {
        for (const e of this.entries.values()) if (e.def.kind === kind) await this.instantiate(kind, e.def.name);
      }
    }
    this.checkUses();
    this.started = true;
  }

  /**
   * Every active plugin's required uses are met (a PluginError lists those that are not); an optional use
   * without a plugin is logged once.
   */
  checkUses(): void {
    const unmet: string[] = [];
    for (const e of this.entries.values()) {
      if (!e.instance) continue;
      for (const use of e.def.uses ?? []) {
        const { target, optional } = parseUse(use);
        const named = namedUse(target);
        const found = target.startsWith('reader:') ? this.readerEntry(target.slice(7)) : named ? this.entries.get(target)?.instance : this.tryGet(target as UsableKind);
        if (found) continue;
        const what = target.startsWith('reader:') ? `no active reader reads ${target.slice(7)}` : named ? `plugin ${target} is not loaded or could not start` : `no ${target} plugin is active`;
        if (optional) this.logger.info({ plugin: `${e.def.kind}:${e.def.name}`, uses: target }, `${what}: the plugin works without it`);
        else unmet.push(`${e.def.kind}:${e.def.name} uses ${target}, but ${what}`);
      }
    }
    if (unmet.length) throw new PluginError(`plugins need what is not there: ${unmet.join('; ')}`);
  }

  /** The definition of kind:name (undefined when not registered). */
  definition(kind: PluginKind, name: string): PluginDefinition | undefined {
    return this.entries.get(`${kind}:${name}`)?.def;
  }

  /** Creates (once) and returns the instance of kind:name. */
  async instantiate<K extends PluginKind>(kind: K, name: string): Promise<PluginInstance<K>> {
    const entry = this.entries.get(`${kind}:${name}`);
    if (!entry) throw new PluginError(`unknown ${kind} plugin "${name}"; known ${kind} plugins: ${this.names(kind).join(', ') || '(none)'}`);
    if (!entry.instance) {
      await this.instantiateNamedUses(entry.def);
      const options = entry.options ?? parseOptions(entry.def, this.resolved.options[`${kind}:${name}`], this.resolved.optionSources);
      const instance = await entry.def.create(
        contextOf(entry.def, options, this.resolved.shared, {
          dataDir: this.resolved.dataDir,
          logger: this.logger,
          http: this.http,
          get: (k, n) => this.get(k, n),
          tryGet: (k, n) => this.tryGet(k, n),
          use: (k, n) => (n === undefined ? this.tryGet(k) : (this.entries.get(`${k}:${n}`)?.instance as PluginInstance<typeof k> | undefined)),
          readerFor: (f) => this.readerEntry(f)?.instance as ReaderPlugin | undefined,
        }),
      );
      // a reader's formats are those its definition declares
      if (kind === 'reader' && entry.def.formats?.length) (instance as ReaderPlugin).formats = entry.def.formats.map((d) => d.format);
      else if (kind === 'reader' && !Array.isArray((instance as ReaderPlugin).formats)) throw new PluginError(`reader ${name} declares no formats`);
      entry.instance = instance;
      this.logger.debug({ plugin: `${kind}:${name}` }, 'plugin started');
    }
    return entry.instance as PluginInstance<K>;
  }

  /**
   * The plugins a definition names in `uses` (`'ocr:tesseract'`) are made first. One that is not registered is
   * left to checkUses; an optional one that fails to start is logged and left out (the plugin works without it).
   */
  private async instantiateNamedUses(def: PluginDefinition): Promise<void> {
    for (const use of def.uses ?? []) {
      const { target, optional } = parseUse(use);
      const named = namedUse(target);
      if (!named || target === `${def.kind}:${def.name}` || !this.entries.has(target)) continue;
      try {
        await this.instantiate(named.kind, named.name);
      } catch (err) {
        if (!optional) throw err;
        this.logger.warn({ plugin: `${def.kind}:${def.name}`, uses: target, err }, `${target} could not start: the plugin works without it`);
      }
    }
  }

  names(kind: PluginKind): string[] {
    return [...this.entries.values()].filter((e) => e.def.kind === kind).map((e) => e.def.name);
  }

  has(kind: PluginKind, name?: string): boolean {
    return name ? this.entries.has(`${kind}:${name}`) : this.names(kind).length > 0;
  }

  /** The active instance of a kind (or a named one). Throws with the known names when absent. */
  get<K extends PluginKind>(kind: K, name?: string): PluginInstance<K> {
    const inst = this.tryGet(kind, name);
    if (!inst) {
      const wanted = name ?? this.resolved.selected[kind];
      throw new PluginError(`no active ${kind} plugin${wanted ? ` "${wanted}"` : ''}; known ${kind} plugins: ${this.names(kind).join(', ') || '(none)'}`);
    }
    return inst;
  }

  tryGet<K extends PluginKind>(kind: K, name?: string): PluginInstance<K> | undefined {
    const wanted = name ?? this.resolved.selected[kind];
    if (wanted) return this.entries.get(`${kind}:${wanted}`)?.instance as PluginInstance<K> | undefined;
    for (const e of this.entries.values()) if (e.def.kind === kind && e.instance) return e.instance as PluginInstance<K>;
    return undefined;
  }

  /** Every active instance of a kind, with its name (readers, generators, integrations). */
  all<K extends PluginKind>(kind: K): { name: string; instance: PluginInstance<K> }[] {
    return [...this.entries.values()]
      .filter((e) => e.def.kind === kind && e.instance)
      .map((e) => ({ name: e.def.name, instance: e.instance as PluginInstance<K> }));
  }

  /**
   * The active reader of a format: of the readers that read it (declared in their definition's formats, or
   * listed by the instance), the one registered last. Throws UNSUPPORTED_FORMAT when there is none.
   */
  readerFor(format: string): { name: string; instance: ReaderPlugin } {
    const e = this.readerEntry(format);
    if (!e) throw errors.unsupported(`No reader for format ${format}`);
    return { name: e.def.name, instance: e.instance as ReaderPlugin };
  }

  /**
   * The format of a file from its bytes: core's detection of the built-in formats, extended by the formats
   * the active readers declare (see FormatDeclaration). Null when no active reader reads it.
   */
  async detectFormat(filePath: string, fileName: string): Promise<DetectedFormat | null> {
    const found = await detectWith(filePath, fileName, this.declarations());
    return found && this.readerEntry(found.format) ? found : null;
  }

  /** Every format an active reader reads, with that reader (sorted by format id). */
  formats(): ReadableFormat[] {
    const declared = new Map(this.declarations().reverse().map((d) => [d.format, d]));
    const ids = new Set(this.readerEntries().flatMap((e) => (e.instance as ReaderPlugin).formats));
    const out: ReadableFormat[] = [];
    for (const format of [...ids].sort()) {
      const d = declared.get(format);
      const info = SUPPORTED_FORMATS[format];
      const reader = this.readerEntry(format)!.def.name;
      if (d) out.push({ format, mime: d.mime, family: d.family ?? info?.family ?? 'document', extensions: d.extensions.map((e) => `.${e.toLowerCase().replace(/^\./, '')}`), reader });
      else if (info) out.push({ format, mime: info.mime, family: info.family, extensions: info.extensions.map((e) => `.${e}`), reader });
    }
    return out;
  }

  /** Active readers, the last registered first. */
  private readerEntries(): Entry[] {
    return [...this.entries.values()].filter((e) => e.def.kind === 'reader' && e.instance).sort((a, b) => b.seq - a.seq);
  }

  private readerEntry(format: string): Entry | undefined {
    const chosen = this.resolved.readers?.[format];
    const pinned = chosen ? this.entries.get(`reader:${chosen}`) : undefined;
    if (pinned?.instance) return pinned;
    return this.readerEntries().find((e) => (e.instance as ReaderPlugin).formats?.includes(format));
  }

  /** The name of the registered reader whose declaration of a format is in force (the last registered). */
  private declaringReader(format: string): string | undefined {
    let best: Entry | undefined;
    for (const e of this.entries.values()) if (e.def.kind === 'reader' && e.def.formats?.some((d) => d.format === format) && (!best || e.seq > best.seq)) best = e;
    return best?.def.name;
  }

  /** The format declarations in force, one per format, the last registered reader's first: what detection tries in order. */
  private declarations(): FormatDeclaration[] {
    const out: FormatDeclaration[] = [];
    const taken = new Set<string>();
    for (const e of this.readerEntries()) {
      for (const d of e.def.formats ?? []) {
        if (taken.has(d.format)) continue;
        taken.add(d.format);
        out.push(d);
      }
    }
    return out;
  }

  /** Health of every active instance: what is missing on this machine is said here. */
  async health(): Promise<{ plugin: string; ok: boolean; message?: string }[]> {
    const out: { plugin: string; ok: boolean; message?: string }[] = [];
    for (const e of this.entries.values()) {
      const inst = e.instance as { health?: () => Promise<{ ok: boolean; message?: string }> } | undefined;
      if (!inst?.health) continue;
      try {
        out.push({ plugin: `${e.def.kind}:${e.def.name}`, ...(await inst.health()) });
      } catch (err) {
        out.push({ plugin: `${e.def.kind}:${e.def.name}`, ok: false, message: (err as Error).message });
      }
    }
    return out;
  }

  async close(): Promise<void> {
    const services = [...this.services.values()];
    this.services.clear();
    for (const s of services) await s.close?.().catch((err) => this.logger.warn({ err }, 'registry service close failed'));
    // close in reverse order of kinds so that stores/transports close last
    const list = [...this.entries.values()].reverse();
    for (const e of list) {
      const inst = e.instance as { close?: () => Promise<void> } | undefined;
      if (inst?.close) {
        try {
          await inst.close();
        } catch (err) {
          this.logger.warn({ err, plugin: `${e.def.kind}:${e.def.name}` }, 'plugin close failed');
        }
      }
      e.instance = undefined;
    }
    this.started = false;
  }

  get isStarted(): boolean {
    return this.started;
  }
}

function readJson(p: string): any {
  try {
    return JSON.parse(fs.readFileSync(p, 'utf8'));
  } catch (e) {
    throw new PluginError(`cannot read ${p}: ${(e as Error).message}`);
  }
}

function entryOf(pkg: any): string {
  const exp = pkg.exports?.['.'] ?? pkg.exports;
  if (typeof exp === 'string') return exp;
  if (exp && typeof exp === 'object') return exp.import ?? exp.default ?? exp.source;
  return pkg.main ?? 'index.js';
}

function findPackageJson(name: string, from: string): string | null {
  let dir = path.resolve(from);
  for (;;) {
    const p = path.join(dir, 'node_modules', name, 'package.json');
    if (fs.existsSync(p)) return p;
    const up = path.dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}
