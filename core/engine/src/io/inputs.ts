import { z } from 'zod';
import { errors } from '@quire/core';
import type { DocumentRecord, JobRecord } from '@quire/core';
import type { AuthInfo } from '../infra/access.js';
import type { EngineContext as Engine } from '../context.js';
import { canRead, loadOwned } from '../infra/access.js';
import { vetUrl } from '../infra/url-fetch.js';
import { jobStillServed } from './documents.js';

const uuid = z.string().uuid();

export type InputRef = { kind: 'document'; doc: DocumentRecord } | { kind: 'job'; job: JobRecord } | { kind: 'url'; url: string };

/** Resolves an `input` string: svc://<document_id>, jobid://<job_id> (when allowed) or an http(s) URL (SSRF-vetted now, fetched later). */
export async function resolveInput(rt: Engine, auth: AuthInfo, input: string, opts: { allowJob?: boolean } = {}): Promise<InputRef> {
  if (input.startsWith('svc://')) {
    const id = input.slice('svc://'.length);
    if (!uuid.safeParse(id).success) throw errors.validation('svc:// reference must carry a document UUID', [{ field: 'input', message: 'invalid svc:// reference' }]);
    return { kind: 'document', doc: await loadOwned(rt.store, 'documents', id, auth, 'read') };
  }
  if (input.startsWith('jobid://')) {
    if (!opts.allowJob) throw errors.validation('jobid:// references are not accepted here', [{ field: 'input', message: 'jobid:// not accepted' }]);
    const id = input.slice('jobid://'.length);
    if (!uuid.safeParse(id).success) throw errors.validation('jobid:// reference must carry a job UUID', [{ field: 'input', message: 'invalid jobid:// reference' }]);
    const job = await rt.store.repo('jobs').get(id);
    if (!job || !canRead(auth, job) || !(await jobStillServed(rt, job))) throw errors.notFound('job', id);
    if (job.type !== 'parse' || job.status !== 'completed') throw errors.conflict(`Job ${id} is not a completed parse job`, { status: job.status, type: job.type });
    return { kind: 'job', job };
  }
  if (/^https?:\/\//i.test(input)) {
    await vetUrl(input, { allowedHosts: rt.config.network.allowedHosts });
    return { kind: 'url', url: input };
  }
  throw errors.validation('input must be an http(s) URL or an svc://<document_id> reference', [{ field: 'input', message: 'unrecognised input' }]);
}
