import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import semver from 'semver';
import { PLUGIN_KINDS } from './kinds.js';
import type { PluginContext, PluginDefinition, PluginInstance, PluginKind, PluginManifest } from './kinds.js';
import type { Logger } from '../util/logger.js';
import { silentLogger } from '../util/logger.js';

export const CORE_VERSION = '1.0.0';

/** Kinds where exactly one plugin is active (chosen by config); for the others every registered plugin is active. */
export const SINGLE_KINDS: PluginKind[] = ['store', 'storage', 'transport', 'chunker', 'embedder', 'vector-store', 'extractor', 'llm', 'ocr'];

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
}

/** How a plugin was loaded: the spec given to load() and the folder it resolved from. */
export interface PluginOrigin {
  spec: string;
  baseDir: string;
}

export interface RegistryOptions {
  config: Readonly<Record<string, any>>;
  dataDir: string;
  logger?: Logger;
  /** active plugin name per single-choice kind */
  selected?: Partial<Record<PluginKind, string>>;
  /** options per plugin, keyed `<kind>:<name>` */
  options?: Record<string, Record<string, unknown>>;
}

/**
 * The one registry every plugin goes through, built-in or third-party. A later registration of the same
 * kind and name overrides the earlier one (so a third party can replace a built-in).
 */
export class PluginRegistry {
  private entries = new Map<string, Entry>();
  private readonly logger: Logger;
  private started = false;
  private readonly services = new Map<string, { value: unknown; close?: () => Promise<void> }>();

  constructor(private readonly opts: RegistryOptions) {
    this.logger = opts.logger ?? silentLogger;
  }

  /** Registers a plugin definition after checking it against its manifest and core's version. */
  register(def: PluginDefinition, manifest?: PluginManifest, source = 'inline'): void {
    if (!def || typeof def !== 'object' || typeof def.create !== 'function') throw new PluginError(`${source}: a plugin's default export must be definePlugin({kind, name, core, create})`);
    if (!PLUGIN_KINDS.includes(def.kind)) throw new PluginError(`${source}: unknown plugin kind "${def.kind}"; known kinds: ${PLUGIN_KINDS.join(', ')}`);
    if (manifest) {
      if (manifest.kind !== def.kind || manifest.name !== def.name) {
        throw new PluginError(`${source}: package.json "quire" says ${manifest.kind}:${manifest.name} but the module exports ${def.kind}:${def.name}`);
      }
    }
    const range = manifest?.core ?? def.core;
    if (!range || !semver.validRange(range) || !semver.satisfies(CORE_VERSION, range)) {
      throw new PluginError(`${source}: plugin ${def.kind}:${def.name} needs @quire/core "${range}", this is ${CORE_VERSION}`);
    }
    const key = `${def.kind}:${def.name}`;
    if (this.entries.has(key)) this.logger.info({ plugin: key, source }, 'plugin overrides an earlier registration');
    this.entries.set(key, { def, source });
  }

  /**
   * Loads a plugin by npm package name or by path (a folder with a package.json that has a "quire" field,
   * or a .js/.ts module). Relative paths resolve from `baseDir`.
   */
  async load(spec: string, baseDir = process.cwd()): Promise<PluginDefinition> {
    const isPath = spec.startsWith('.') || spec.startsWith('/') || /^[A-Za-z]:[\\/]/.test(spec);
    let manifest: PluginManifest | undefined;
    let moduleUrl: string;
    if (isPath) {
      const abs = path.resolve(baseDir, spec);
      if (fs.existsSync(abs) && fs.statSync(abs).isDirectory()) {
        const pkg = readJson(path.join(abs, 'package.json'));
        manifest = pkg.quire;
        moduleUrl = pathToFileURL(path.join(abs, entryOf(pkg))).href;
      } else {
        moduleUrl = pathToFileURL(abs).href;
      }
    } else {
      const pkgPath = findPackageJson(spec, baseDir);
      if (pkgPath) manifest = readJson(pkgPath).quire;
      moduleUrl = spec;
    }
    if (manifest && (!manifest.kind || !manifest.name || !manifest.core)) throw new PluginError(`${spec}: package.json "quire" field needs kind, name and core`);
    let mod: any;
    try {
      mod = await import(moduleUrl);
    } catch (e) {
      throw new PluginError(`cannot load plugin "${spec}": ${(e as Error).message}`);
    }
    const def: PluginDefinition = mod.default ?? mod.plugin;
    this.register(def, manifest, spec);
    const entry = this.entries.get(`${def.kind}:${def.name}`);
    if (entry) entry.origin = { spec, baseDir };
    return def;
  }

  /** Where kind:name was loaded from; undefined for plugins registered inline. */
  origin(kind: PluginKind, name: string): PluginOrigin | undefined {
    return this.entries.get(`${kind}:${name}`)?.origin;
  }

  /** The registry's options (config, data dir, selection, per-plugin options), for a registry in another thread. */
  get settings(): Readonly<RegistryOptions> {
    return this.opts;
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

  /** Creates the active instances: the selected plugin of each single-choice kind and every plugin of the other kinds. */
  async start(): Promise<void> {
    for (const kind of PLUGIN_KINDS) {
      if (SINGLE_KINDS.includes(kind)) {
        const name = this.opts.selected?.[kind];
        if (name) await this.instantiate(kind, name);
      } else {
        for (const e of this.entries.values()) if (e.def.kind === kind) await this.instantiate(kind, e.def.name);
      }
    }
    this.started = true;
  }

  /** Creates (once) and returns the instance of kind:name. */
  async instantiate<K extends PluginKind>(kind: K, name: string): Promise<PluginInstance<K>> {
    const entry = this.entries.get(`${kind}:${name}`);
    if (!entry) throw new PluginError(`unknown ${kind} plugin "${name}"; known ${kind} plugins: ${this.names(kind).join(', ') || '(none)'}`);
    if (!entry.instance) {
      entry.instance = await entry.def.create(this.context(kind, name));
      this.logger.debug({ plugin: `${kind}:${name}` }, 'plugin started');
    }
    return entry.instance as PluginInstance<K>;
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
      const wanted = name ?? this.opts.selected?.[kind];
      throw new PluginError(`no active ${kind} plugin${wanted ? ` "${wanted}"` : ''}; known ${kind} plugins: ${this.names(kind).join(', ') || '(none)'}`);
    }
    return inst;
  }

  tryGet<K extends PluginKind>(kind: K, name?: string): PluginInstance<K> | undefined {
    const wanted = name ?? this.opts.selected?.[kind];
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

  private context(kind: PluginKind, name: string): PluginContext {
    return {
      options: this.opts.options?.[`${kind}:${name}`] ?? {},
      config: this.opts.config,
      dataDir: this.opts.dataDir,
      logger: this.logger.child({ plugin: `${kind}:${name}` }),
      get: (k, n) => this.get(k, n),
      tryGet: (k, n) => this.tryGet(k, n),
    };
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
