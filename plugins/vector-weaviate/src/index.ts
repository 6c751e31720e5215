import crypto from 'node:crypto';
import type { FilterValue } from 'weaviate-client';
import { checkOptions, definePlugin, errors, QuireError, z } from '@quire/core';
import type { Logger, VectorFilter, VectorHit, VectorItem, VectorStorePlugin } from '@quire/core';

/**
 * weaviate-client (with its gRPC and GraphQL stacks) is loaded when a store first connects, not with the
 * plugin: every process loads every built-in plugin, and most never use Weaviate (loading it costs each
 * server, worker or runner start about 0.5 s of CPU).
 */
type WeaviateModule = typeof import('weaviate-client');
let loaded: WeaviateModule | null = null;
export async function loadWeaviate(): Promise<WeaviateModule> {
  loaded ??= await import('weaviate-client');
  return loaded;
}
function wv(): WeaviateModule {
  if (!loaded) throw new Error('weaviate-client is not loaded yet (loadWeaviate())');
  return loaded;
}

/** Where and how to connect, derived from the URL and options. */
export interface ConnectParams {
  httpHost: string;
  httpPort: number;
  httpSecure: boolean;
  httpPath?: string;
  grpcHost: string;
  grpcPort: number;
  grpcSecure: boolean;
  apiKey?: string;
  timeoutSeconds: { init: number; query: number; insert: number };
}

/** The part of weaviate-client's collection API the store uses (a fake one is injected in tests). */
export interface CollectionLike {
  data: {
    insertMany(objects: unknown[]): Promise<{ hasErrors: boolean; errors: Record<number, { message: string }> }>;
    deleteMany(where: FilterValue, opts?: unknown): Promise<{ failed: number; matches: number; successful: number }>;
    update(object: { id: string; properties: Record<string, unknown> }): Promise<unknown>;
  };
  query: {
    fetchObjects(opts: unknown): Promise<{ objects: WeaviateObjectLike[] }>;
    hybrid(query: string, opts: unknown): Promise<{ objects: WeaviateObjectLike[] }>;
    nearVector(vector: number[], opts: unknown): Promise<{ objects: WeaviateObjectLike[] }>;
  };
  aggregate: { overAll(opts?: unknown): Promise<{ totalCount: number }> };
}
export interface WeaviateObjectLike {
  uuid?: string;
  properties: Record<string, unknown>;
  metadata?: { score?: number; distance?: number };
}
export interface ClientLike {
  collections: {
    exists(name: string): Promise<boolean>;
    create(config: unknown): Promise<unknown>;
    get(name: string): CollectionLike;
    listAll(): Promise<{ name: string }[]>;
  };
  isReady(): Promise<boolean>;
  close(): Promise<void>;
}

/** Options of the Weaviate store (plugin options `vector-store:weaviate`), with their defaults. */
export const WEAVIATE_OPTIONS = z.strictObject({
  /** REST address, e.g. http://weaviate:8080 (QUIRE_WEAVIATE_URL; query parameters grpc_host, grpc_port, grpc_secure are read too); needed to use it */
  url: z.string().min(1).optional(),
  /** QUIRE_WEAVIATE_API_KEY */
  apiKey: z.string().min(1).optional(),
  /** gRPC host (default: the URL's host) */
  grpcHost: z.string().min(1).optional(),
  /** gRPC port (default 50051; 443 for https URLs without an explicit port) */
  grpcPort: z.number().int().min(1).max(65535).optional(),
  grpcSecure: z.boolean().optional(),
  /** collection name prefix */
  collectionPrefix: z.string().regex(/^[A-Z][A-Za-z0-9_]*$/, 'must start with a capital letter and use only letters, digits and _').default('QuireChunks'),
  /** objects per insertMany */
  batchSize: z.number().int().min(1).max(10_000).default(200),
  /** default vector weight in hybrid queries */
  alpha: z.number().min(0).max(1).default(0.5),
  /** hybrid fusion (RelativeScore: scores in 0..1) */
  fusionType: z.enum(['RelativeScore', 'Ranked']).default('RelativeScore'),
  /** connects; defaults to weaviate.connectToCustom (tests give a fake) */
  client: z.custom<(params: ConnectParams) => Promise<ClientLike>>((v) => typeof v === 'function', 'must be a function').optional(),
});

export type WeaviateStoreOptions = z.input<typeof WEAVIATE_OPTIONS> & { url: string; logger?: Logger };

const RETURN_PROPERTIES = ['chunk_id', 'document_id', 'page', 'text', 'metadata'];

/** The collection definition of a space. */
export function collectionConfig(name: string, space: string) {
  const id = (n: string) => ({ name: n, dataType: 'text' as const, tokenization: 'field' as const, indexSearchable: false, indexFilterable: true });
  return {
    name,
    description: `Quire chunks of vector space ${space}`,
    vectorizers: wv().default.configure.vectorizer.none({ vectorIndexConfig: wv().default.configure.vectorIndex.hnsw({ distanceMetric: 'cosine' }) }),
    properties: [
      id('chunk_id'),
      id('document_id'),
      id('user_id'),
      id('organization_id'),
      { name: 'page', dataType: 'int' as const },
      { name: 'text', dataType: 'text' as const, tokenization: 'word' as const, indexSearchable: true, indexFilterable: false },
      { name: 'metadata', dataType: 'text' as const, indexSearchable: false, indexFilterable: false },
    ],
  };
}

/** Collection name of a space: a prefix and a hash (Weaviate class names allow only [A-Za-z0-9_], capitalised). */
export function collectionName(space: string, prefix = 'QuireChunks'): string {
  return `${prefix}_${crypto.createHash('sha256').update(space).digest('hex').slice(0, 12)}`;
}

/** The Weaviate filter for a VectorFilter (undefined when it restricts nothing). */
export function buildFilter(filter: VectorFilter): FilterValue | undefined {
  const { Filters } = wv();
  const f = wv().default.filter;
  const parts: FilterValue[] = [];
  if (filter.documentIds) parts.push(f.byProperty('document_id').containsAny(filter.documentIds));
  const owner: FilterValue[] = [];
  if (filter.userId !== undefined) owner.push(f.byProperty('user_id').equal(filter.userId));
  if (filter.organizationIds?.length) owner.push(f.byProperty('organization_id').containsAny(filter.organizationIds));
  if (owner.length) parts.push(owner.length === 1 ? owner[0]! : Filters.or(...owner));
  return parts.length === 0 ? undefined : parts.length === 1 ? parts[0] : Filters.and(...parts);
}

/** Connection parameters from the URL and options. */
export function connectParams(o: Pick<WeaviateStoreOptions, 'url' | 'apiKey' | 'grpcHost' | 'grpcPort' | 'grpcSecure'>): ConnectParams {
  let u: URL;
  try {
    u = new URL(o.url);
  } catch {
    throw errors.validation(`vector store weaviate: ${o.url} is not a URL (QUIRE_WEAVIATE_URL)`, { option: 'url' });
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw errors.validation('vector store weaviate: the URL must be http:// or https://', { option: 'url' });
  const secure = u.protocol === 'https:';
  const q = u.searchParams;
  const bool = (v: string | null) => (v === null ? undefined : v === 'true' || v === '1');
  const grpcPort = o.grpcPort ?? (q.get('grpc_port') ? Number(q.get('grpc_port')) : secure && !u.port ? 443 : 50051);
  if (!Number.isInteger(grpcPort) || grpcPort < 1 || grpcPort > 65535) throw errors.validation('vector store weaviate: grpc port must be 1..65535', { option: 'grpcPort' });
  const path = u.pathname.replace(/\/+$/, '');
  return {
    httpHost: u.hostname,
    httpPort: u.port ? Number(u.port) : secure ? 443 : 80,
    httpSecure: secure,
    ...(path ? { httpPath: path } : {}),
    grpcHost: o.grpcHost ?? q.get('grpc_host') ?? u.hostname,
    grpcPort,
    grpcSecure: o.grpcSecure ?? bool(q.get('grpc_secure')) ?? secure,
    ...(o.apiKey ? { apiKey: o.apiKey } : {}),
    timeoutSeconds: { init: 10, query: 30, insert: 120 },
  };
}

/** Connects with weaviate-client (REST + gRPC, API key auth). */
export async function defaultClient(p: ConnectParams): Promise<ClientLike> {
  const weaviate = (await loadWeaviate()).default;
  const client = await weaviate.connectToCustom({
    httpHost: p.httpHost,
    httpPort: p.httpPort,
    httpSecure: p.httpSecure,
    ...(p.httpPath ? { httpPath: p.httpPath } : {}),
    grpcHost: p.grpcHost,
    grpcPort: p.grpcPort,
    grpcSecure: p.grpcSecure,
    ...(p.apiKey ? { authCredentials: new weaviate.ApiKey(p.apiKey) } : {}),
    timeout: p.timeoutSeconds,
  });
  return client as unknown as ClientLike;
}

const clamp01 = (x: number) => (x > 1 ? 1 : x > 0 ? x : 0);

/**
 * Vector store on Weaviate: one collection per vector space, created on first use without a vectorizer
 * (Quire brings the vectors); hybrid queries (BM25 on `text` + vector) with document and owner filters.
 */
export class WeaviateVectorStore implements VectorStorePlugin {
  private readonly params: ConnectParams;
  private readonly connect: (p: ConnectParams) => Promise<ClientLike>;
  private connecting: Promise<ClientLike> | null = null;
  private readonly ensured = new Map<string, Promise<CollectionLike>>();
  private readonly prefix: string;
  private readonly batchSize: number;
  private readonly alpha: number;
  private readonly fusionType: 'RelativeScore' | 'Ranked';
  private readonly logger?: Logger;
  readonly url: string;

  constructor(options: WeaviateStoreOptions) {
    if (!options.url) throw errors.validation('vector store weaviate needs QUIRE_WEAVIATE_URL', { option: 'url' });
    const { logger, ...rest } = options;
    const o = checkOptions(WEAVIATE_OPTIONS, rest, 'vector-store:weaviate');
    this.params = connectParams({ ...o, url: options.url });
    this.url = options.url.replace(/\?.*$/, '');
    this.connect = o.client ?? defaultClient;
    this.prefix = o.collectionPrefix;
    this.batchSize = o.batchSize;
    this.alpha = o.alpha;
    this.fusionType = o.fusionType;
    this.logger = logger;
  }

  /** The connected client (connects once; a failed attempt is retried on the next call). */
  private client(): Promise<ClientLike> {
    if (!this.connecting) {
      this.connecting = loadWeaviate().then(() => this.connect(this.params)).catch((e: unknown) => {
        this.connecting = null;
        throw errors.unavailable(`Weaviate at ${this.url} (gRPC ${this.params.grpcHost}:${this.params.grpcPort}) is not reachable: ${(e as Error).message}`, { url: this.url });
      });
    }
    return this.connecting;
  }

  /** Runs a Weaviate call, turning its failures into UPSTREAM_ERROR. */
  private async call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof QuireError) throw e;
      throw errors.upstream(`Weaviate ${what} failed: ${(e as Error).message}`, { url: this.url });
    }
  }

  /** The collection of a space, created on first use (tolerating another process creating it at the same time). */
  private async collection(space: string, create: boolean): Promise<CollectionLike | null> {
    const name = collectionName(space, this.prefix);
    const known = this.ensured.get(name);
    if (known) return known;
    const client = await this.client();
    const exists = await this.call('collection lookup', () => client.collections.exists(name));
    if (!exists && !create) return null;
    const p = (async () => {
      if (!exists) {
        await this.call(`creating collection ${name}`, async () => {
          try {
            await client.collections.create(collectionConfig(name, space));
            this.logger?.info({ collection: name, space }, 'weaviate collection created');
          } catch (e) {
            if (!(await client.collections.exists(name))) throw e;
          }
        });
      }
      return client.collections.get(name);
    })();
    this.ensured.set(name, p);
    p.catch(() => this.ensured.delete(name));
    return p;
  }

  async upsert(space: string, items: VectorItem[]): Promise<void> {
    if (!items.length) return;
    const col = (await this.collection(space, true))!;
    for (let i = 0; i < items.length; i += this.batchSize) {
      const objects = items.slice(i, i + this.batchSize).map((it) => ({
        id: wv().generateUuid5(`${space}:${it.id}`),
        properties: {
          chunk_id: it.id,
          document_id: it.documentId,
          user_id: it.userId,
          ...(it.organizationId ? { organization_id: it.organizationId } : {}),
          page: Math.trunc(it.page || 1),
          text: it.text,
          metadata: JSON.stringify(it.metadata ?? {}),
        },
        vectors: Array.from(it.vector),
      }));
      const res = await this.call('batch import', () => col.data.insertMany(objects));
      if (res.hasErrors) {
        const msgs = [...new Set(Object.values(res.errors).map((e) => e.message))].slice(0, 3);
        throw errors.upstream(`Weaviate batch import failed for ${Object.keys(res.errors).length} of ${objects.length} objects: ${msgs.join('; ')}`, { url: this.url });
      }
    }
  }

  async search(space: string, query: { text: string; vector: Float32Array; topK: number; filter: VectorFilter; alpha?: number }): Promise<VectorHit[]> {
    const filter = query.filter ?? {};
    if (filter.documentIds && filter.documentIds.length === 0) return [];
    const col = await this.collection(space, false);
    if (!col) return [];
    const limit = Math.min(1000, Math.max(1, Math.trunc(Number(query.topK) || 10)));
    const alpha = query.alpha ?? this.alpha;
    const filters = buildFilter(filter);
    const vector = Array.from(query.vector ?? []);
    const common = { limit, ...(filters ? { filters } : {}), returnProperties: RETURN_PROPERTIES };
    const text = (query.text ?? '').trim();
    const res = text && alpha < 1
      ? await this.call('hybrid query', () => col.query.hybrid(text, { ...common, ...(vector.length ? { vector } : {}), alpha: vector.length ? alpha : 0, fusionType: this.fusionType, queryProperties: ['text'], returnMetadata: ['score'] }))
      : await this.call('vector query', () => col.query.nearVector(vector, { ...common, returnMetadata: ['distance'] }));
    const hits = res.objects.map((o): VectorHit => {
      const p = o.properties;
      const score = o.metadata?.score ?? (o.metadata?.distance !== undefined ? 1 - o.metadata.distance : 0);
      let metadata: Record<string, unknown> | undefined;
      try {
        metadata = typeof p.metadata === 'string' && p.metadata ? (JSON.parse(p.metadata) as Record<string, unknown>) : undefined;
      } catch {
        metadata = undefined;
      }
      return { id: String(p.chunk_id), documentId: String(p.document_id), page: Number(p.page ?? 1), text: String(p.text ?? ''), score: clamp01(score), ...(metadata ? { metadata } : {}) };
    });
    return hits.sort((a, b) => b.score - a.score);
  }

  async deleteDocument(documentId: string): Promise<void> {
    const client = await this.client();
    const all = await this.call('collection listing', () => client.collections.listAll());
    const where = wv().default.filter.byProperty('document_id').equal(documentId);
    for (const { name } of all.filter((c) => c.name.startsWith(`${this.prefix}_`))) {
      const col = client.collections.get(name);
      // deleteMany removes up to the server's QUERY_MAXIMUM_RESULTS per call: repeat until nothing matches
      for (let i = 0; i < 1000; i++) {
        const r = await this.call(`delete in ${name}`, () => col.data.deleteMany(where));
        if (r.failed) throw errors.upstream(`Weaviate could not delete ${r.failed} objects of document ${documentId} in ${name}`, { url: this.url });
        if (!r.matches || !r.successful) break;
      }
    }
  }

  /** Changes the owner properties of a document's objects in every Quire collection (a partial update of each). */
  async setOwner(documentId: string, owner: { userId: string; organizationId: string | null }): Promise<void> {
    const client = await this.client();
    const all = await this.call('collection listing', () => client.collections.listAll());
    const filters = wv().default.filter.byProperty('document_id').equal(documentId);
    const properties = { user_id: owner.userId, ...(owner.organizationId ? { organization_id: owner.organizationId } : {}) };
    for (const { name } of all.filter((c) => c.name.startsWith(`${this.prefix}_`))) {
      const col = client.collections.get(name);
      const found = await this.call(`owner lookup in ${name}`, () => col.query.fetchObjects({ filters, limit: 10_000, returnProperties: ['chunk_id'] }));
      for (const o of found.objects) if (o.uuid) await this.call(`owner change in ${name}`, () => col.data.update({ id: o.uuid!, properties }));
    }
  }

  async count(space: string): Promise<number> {
    const col = await this.collection(space, false);
    if (!col) return 0;
    return (await this.call('aggregate', () => col.aggregate.overAll())).totalCount;
  }

  async health(): Promise<{ ok: boolean; message?: string }> {
    try {
      const client = await this.client();
      const ready = await client.isReady();
      return ready ? { ok: true, message: `weaviate ${this.url}` } : { ok: false, message: `Weaviate at ${this.url} is not ready` };
    } catch (e) {
      return { ok: false, message: (e as Error).message };
    }
  }

  async close(): Promise<void> {
    const c = this.connecting;
    this.connecting = null;
    this.ensured.clear();
    if (c) await c.then((cl) => cl.close(), () => undefined);
  }
}

/** Weaviate vector store. Options: WEAVIATE_OPTIONS (url and apiKey from QUIRE_WEAVIATE_URL, QUIRE_WEAVIATE_API_KEY). */
export default definePlugin({
  kind: 'vector-store',
  name: 'weaviate',
  core: '^1',
  description: 'Weaviate vector store through weaviate-client.',
  options: WEAVIATE_OPTIONS,
  create(ctx) {
    return new WeaviateVectorStore({ ...ctx.options, url: ctx.options.url ?? '', logger: ctx.logger });
  },
});
