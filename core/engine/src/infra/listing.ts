import type { FindOptions, Owned, Store, TableName, Tables, Where } from '@quire/core';
import { personalOf } from './access.js';
import type { AuthInfo } from './access.js';

type OwnedName = { [N in TableName]: Tables[N] extends Owned & { id: string } ? N : never }[TableName];

/** Lists the caller's personal rows plus their current organizations' rows, paginated, with the total. */
export async function listOwned<N extends OwnedName>(
  store: Store,
  table: N,
  auth: AuthInfo,
  where: Where<Tables[N]>,
  opts: { limit: number; offset: number; orderBy: keyof Tables[N] & string; direction?: 'ASC' | 'DESC' },
): Promise<{ rows: Tables[N][]; total: number }> {
  const repo = store.repo(table);
  const order = { [opts.orderBy]: opts.direction ?? 'DESC' } as FindOptions<Tables[N]>['order'];
  // a filter on organization_id narrows to that organization (when the caller is in it): no personal rows
  const named = (where as { organization_id?: unknown }).organization_id;
  const mine = (named === undefined ? { ...where, ...personalOf(auth) } : { id: [] }) as Where<Tables[N]>;
  const orgIds = auth.memberships.map((m) => m.organization_id).filter((o) => named === undefined || named === o);
  if (!orgIds.length && !auth.locked?.length) {
    const [rows, total] = await Promise.all([repo.find(mine, { limit: opts.limit, offset: opts.offset, order }), repo.count(mine)]);
    return { rows, total };
  }
  const [a, b] = await Promise.all([repo.find(mine, { order }), orgIds.length ? repo.find({ ...where, organization_id: orgIds } as Where<Tables[N]>, { order }) : Promise.resolve([])]);
  const seen = new Set<string>();
  // the caller's own rows in an organization that locks them out (require_2fa) are left out too
  const all = [...a, ...b].filter((r) => !(r.organization_id && auth.locked?.includes(r.organization_id)) && (seen.has(r.id) ? false : (seen.add(r.id), true)));
  const key = opts.orderBy;
  const dir = (opts.direction ?? 'DESC') === 'DESC' ? -1 : 1;
  all.sort((x, y) => {
    const vx = x[key] as unknown as number | string | Date;
    const vy = y[key] as unknown as number | string | Date;
    return (vx < vy ? -1 : vx > vy ? 1 : 0) * dir;
  });
  return { rows: all.slice(opts.offset, opts.offset + opts.limit), total: all.length };
}
