/**
 * Entity column helpers. The entity side only tells TypeORM how to convert values (the schema itself is
 * created by the migrations), so these types are the dialect-neutral ones both drivers accept.
 */
import type { EntitySchemaColumnOptions, ValueTransformer } from 'typeorm';

/** Length of id and foreign-id columns (UUIDs). */
export const ID_LENGTH = 36;

/** JSON values stored as text, parsed back to objects; null stays null. */
const jsonTransformer: ValueTransformer = {
  to: (v: unknown) => (v === null || v === undefined ? v : JSON.stringify(v)),
  from: (v: unknown) => (v === null || v === undefined ? null : typeof v === 'string' ? JSON.parse(v) : v),
};

/** MySQL returns BIGINT as a string; records want numbers. */
const numberTransformer: ValueTransformer = {
  to: (v: unknown) => v,
  from: (v: unknown) => (v === null || v === undefined ? null : typeof v === 'number' ? v : Number(v)),
};

type Opt = { nullable?: boolean };
const n = (o?: Opt) => ({ nullable: o?.nullable ?? false });

export const col = {
  /** primary key (a UUID unless said otherwise) */
  pk: (length: number = ID_LENGTH): EntitySchemaColumnOptions => ({ type: 'varchar', length, primary: true }),
  /** a reference to another record's id */
  ref: (o?: Opt): EntitySchemaColumnOptions => ({ type: 'varchar', length: ID_LENGTH, ...n(o) }),
  string: (length: number, o?: Opt): EntitySchemaColumnOptions => ({ type: 'varchar', length, ...n(o) }),
  /** unbounded text (longtext on MySQL) */
  text: (o?: Opt): EntitySchemaColumnOptions => ({ type: 'text', ...n(o) }),
  /** any JSON value, stored as text */
  json: (o?: Opt): EntitySchemaColumnOptions => ({ type: 'text', transformer: jsonTransformer, ...n(o) }),
  /** Date with millisecond precision, stored in UTC */
  date: (o?: Opt): EntitySchemaColumnOptions => ({ type: 'datetime', ...n(o) }),
  int: (o?: Opt): EntitySchemaColumnOptions => ({ type: 'int', ...n(o) }),
  /** integers beyond 2^31 (byte sizes) */
  bigint: (o?: Opt): EntitySchemaColumnOptions => ({ type: 'bigint', transformer: numberTransformer, ...n(o) }),
  double: (o?: Opt): EntitySchemaColumnOptions => ({ type: 'double', ...n(o) }),
  bool: (o?: Opt): EntitySchemaColumnOptions => ({ type: 'boolean', ...n(o) }),
};
