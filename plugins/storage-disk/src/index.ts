/**
 * Blob storage plugin on the local disk, rooted at `<dataDir>/files` (plugin option `root` overrides it).
 */
import path from 'node:path';
import { definePlugin, z } from '@quire/core';
import { DiskStorage } from './disk.js';

export { DiskStorage } from './disk.js';
export { StorageKeyError, assertKey } from './keys.js';

export default definePlugin({
  kind: 'storage',
  name: 'disk',
  core: '^1',
  description: 'Blob storage on the local disk under the data dir.',
  options: z.strictObject({
    /** where the files live (default: <data dir>/files) */
    root: z.string().trim().min(1).optional(),
  }),
  create(ctx) {
    const { root } = ctx.options;
    return new DiskStorage(root ? path.resolve(root) : path.join(ctx.dataDir, 'files')).init();
  },
});
