/** Parses QUIRE_DB_URL into what the store opens. */
import path from 'node:path';

export type DbTarget =
  | { dialect: 'sqlite'; /** file path, or ':memory:' */ file: string }
  | {
      dialect: 'mysql';
      host: string;
      port: number;
      user: string;
      password: string;
      database: string;
      connectionLimit: number;
      ssl: boolean | 'skip-verify';
    };

/**
 * - absent → SQLite file `<dataDir>/quire.db`
 * - `sqlite:///abs/path.db`, `sqlite:relative/path.db` (from the working directory), `sqlite::memory:`
 * - `mysql://user:pass@host:3306/db` or `mariadb://...`; query options `connectionLimit` (default 10) and
 *   `ssl` (`true`, or `skip-verify` to accept any certificate)
 */
export function parseDbUrl(url: string | undefined, dataDir: string): DbTarget {
  if (!url) return { dialect: 'sqlite', file: path.join(dataDir, 'quire.db') };
  if (url.startsWith('sqlite:')) {
    let rest = url.slice('sqlite:'.length);
    if (rest === ':memory:' || rest === '//:memory:') return { dialect: 'sqlite', file: ':memory:' };
    if (rest.startsWith('//')) rest = rest.slice(2);
    rest = decodeURIComponent(rest.split('?')[0]!);
    if (!rest) throw new Error('QUIRE_DB_URL: sqlite URL needs a file path, e.g. sqlite:///var/lib/quire/quire.db');
    return { dialect: 'sqlite', file: path.resolve(rest) };
  }
  if (url.startsWith('mysql:') || url.startsWith('mariadb:')) {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      throw new Error('QUIRE_DB_URL: not a valid URL (expected mysql://user:pass@host:3306/database)');
    }
    const database = decodeURIComponent(u.pathname.replace(/^\//, ''));
    if (!database) throw new Error('QUIRE_DB_URL: the MySQL URL needs a database name, e.g. mysql://user:pass@host:3306/quire');
    if (!/^[A-Za-z0-9_$-]{1,64}$/.test(database)) throw new Error(`QUIRE_DB_URL: database name "${database}" may only use letters, digits, _, $ and -`);
    const limit = Number(u.searchParams.get('connectionLimit') ?? 10);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new Error('QUIRE_DB_URL: connectionLimit must be an integer from 1 to 1000');
    const ssl = u.searchParams.get('ssl');
    return {
      dialect: 'mysql',
      host: u.hostname || 'localhost',
      port: u.port ? Number(u.port) : 3306,
      user: decodeURIComponent(u.username || 'root'),
      password: decodeURIComponent(u.password),
      database,
      connectionLimit: limit,
      ssl: ssl === 'skip-verify' ? 'skip-verify' : ssl === 'true' || ssl === '1',
    };
  }
  throw new Error('QUIRE_DB_URL must start with sqlite:, mysql: or mariadb:');
}

/** The target without secrets, for logs and health messages. */
export function describeTarget(t: DbTarget): string {
  return t.dialect === 'sqlite' ? `sqlite ${t.file}` : `mysql ${t.host}:${t.port}/${t.database}`;
}
