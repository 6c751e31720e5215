export declare const RUN_ENV: 'QUIRE_TEST_RUN';
export declare const STATE_ENV: 'QUIRE_TEST_STATE_DIR';
export declare const KNOWN_STAGES: string[];
export interface RabbitNames {
  queues: string[];
  exchanges: string[];
}
export interface ResourceEntry {
  kind: 'mysql' | 'amqp';
  name?: string;
  prefix?: string;
  queues?: string[];
  exchanges?: string[];
}
export interface Leftovers {
  databases: string[];
  queues: { name: string; messages: number }[];
  exchanges: string[];
  temp: { path: string; bytes: number }[];
  errors: string[];
}
export declare function runTag(): string;
export declare function resourceStem(tag?: string): string;
export declare function recordResource(entry: ResourceEntry): void;
export declare function readResources(stateDir: string): ResourceEntry[];
export declare function listDatabases(url: string, stem: string): Promise<string[]>;
export declare function dropDatabase(url: string, name: string): Promise<void>;
export declare function listRabbit(stems: string[]): Promise<{ queues: { name: string; messages: number }[]; exchanges: string[] } | null>;
export declare function probeRabbit(url: string, queues: string[], exchanges: string[]): Promise<{ queues: { name: string; messages: number }[]; exchanges: string[] }>;
export declare function deleteRabbit(url: string, queues: string[], exchanges: string[]): Promise<void>;
export declare function knownRabbitNames(prefix: string, stages?: string[]): RabbitNames;
export declare function deleteRabbitPrefix(url: string, prefix: string, known?: RabbitNames, opts?: { list: boolean }): Promise<void>;
export declare function listTemp(dir: string, ignore?: string[]): { path: string; bytes: number }[];
export declare function findLeftovers(opts: { tag: string; stateDir?: string; tmpDir?: string; mysqlUrl?: string; amqpUrl?: string; ignoreTemp?: string[] }): Promise<Leftovers>;
export declare function describeLeftovers(l: Leftovers): string[];
export declare function removeLeftovers(l: Leftovers, opts: { mysqlUrl?: string; amqpUrl?: string }): Promise<void>;
