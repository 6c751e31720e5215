/**
 * Blob storage plugin on the local disk, rooted at `<dataDir>/files` (plugin option `root` overrides it).
 */
import path from 'node:path';
import { definePlugin, errors } from '@quire/core';
import { DiskStorage } from './disk.js';

export { DiskStorage } from './disk.js';
export { StorageKeyError, assertKey } from './keys.js';

export default definePlugin({
  kind: 'storage',
  name: 'disk',
  core: '^1',
  description: 'Blob storage on the local disk under the data dir.',
  create(ctx) {
    const root = ctx.options.root;
    if (root !== undefined && (typeof root !== 'string' || !root.trim())) throw errors.validation('storage:disk option "root" must be a non-empty path');
    return new DiskStorage(typeof root === 'string' ? path.resolve(root) : path.join(ctx.dataDir, 'files')).init();
  },
});
