/**
 * One catalogue of coded errors. Every error the API returns is one of these codes; the HTTP layer maps
 * them to the spec's body {error: {code, message, details}} and to a status. A test checks that every
 * code is documented in the README.
 */
export const ERROR_CATALOGUE = {
  VALIDATION_ERROR: { status: 400, description: 'Invalid input or configuration.' },
  UNAUTHORIZED: { status: 401, description: 'Missing, unknown, expired or revoked API key.' },
  FORBIDDEN: { status: 403, description: 'Authenticated, but not allowed to do this to this resource.' },
  NOT_FOUND: { status: 404, description: 'No such route or resource (or it belongs to someone else).' },
  METHOD_NOT_ALLOWED: { status: 405, description: 'The route exists but not with this method.' },
  CONFLICT: { status: 409, description: 'The resource is in a state that does not allow this, or a unique value is taken.' },
  FILE_TOO_LARGE: { status: 413, description: 'The file exceeds the size limit (100 MB; 5 GB for presigned uploads).' },
  UNSUPPORTED_FORMAT: { status: 422, description: 'The file format is not supported.' },
  UNPROCESSABLE: { status: 422, description: 'The input is well-formed but cannot be processed as asked.' },
  rate_limit_exceeded: { status: 429, description: 'Too many requests for the plan; see Retry-After.' },
  INSUFFICIENT_CREDITS: { status: 402, description: 'The account has no credits left for this operation.' },
  WORKFLOW_LIMIT: { status: 429, description: 'Too many workflow executions: running at once for the owner, or started from one event or run.' },
  PROCESSING_ERROR: { status: 500, description: 'Parsing or processing failed; the message says why.' },
  UPSTREAM_ERROR: { status: 502, description: 'A remote service (URL input, LLM, embeddings provider) failed.' },
  SERVICE_UNAVAILABLE: { status: 503, description: 'A dependency (database, queue, system binary) is not available.' },
  INTERNAL_ERROR: { status: 500, description: 'Unexpected failure; details are in the server log under the request id.' },
} as const;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** Marks a QuireError, so that one made by another copy of this package (a plugin's own @quire/sdk) is one too. */
const QUIRE_ERROR = Symbol.for('quire.error');

export class QuireError extends Error {
  /** `instanceof QuireError` holds for errors of any copy of the SDK (a plugin bundles its own) */
  static override [Symbol.hasInstance](v: unknown): boolean {
    return !!v && typeof v === 'object' && (v as Record<symbol, unknown>)[QUIRE_ERROR] === true;
  }
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: unknown;
  constructor(code: ErrorCode, message: string, details?: unknown) {
    super(message);
    this.name = 'QuireError';
    this.code = code;
    this.status = ERROR_CATALOGUE[code].status;
    this.details = details ?? null;
    Object.defineProperty(this, QUIRE_ERROR, { value: true });
  }
}

export const errors = {
  validation: (message: string, details?: unknown) => new QuireError('VALIDATION_ERROR', message, details),
  notFound: (what: string, id?: string) => new QuireError('NOT_FOUND', id ? `${what} ${id} not found` : `${what} not found`),
  forbidden: (message = 'Not allowed') => new QuireError('FORBIDDEN', message),
  unauthorized: (message = 'Missing or invalid API key') => new QuireError('UNAUTHORIZED', message),
  conflict: (message: string, details?: unknown) => new QuireError('CONFLICT', message, details),
  /** 413 naming the limit that applied ("File exceeds the 100 MB limit", "JSON body exceeds the 1 MB limit") */
  tooLarge: (limit: number, what = 'File') => new QuireError('FILE_TOO_LARGE', `${what} exceeds the ${formatBytes(limit)} limit`, { limit_bytes: limit }),
  unsupported: (message: string, details?: unknown) => new QuireError('UNSUPPORTED_FORMAT', message, details),
  processing: (message: string, details?: unknown) => new QuireError('PROCESSING_ERROR', message, details),
  /** the input is well-formed but over a limit or otherwise impossible to process (permanent: never retried) */
  unprocessable: (message: string, details?: unknown) => new QuireError('UNPROCESSABLE', message, details),
  upstream: (message: string, details?: unknown) => new QuireError('UPSTREAM_ERROR', message, details),
  unavailable: (message: string, details?: unknown) => new QuireError('SERVICE_UNAVAILABLE', message, details),
  /** 429: a workflow limit (running executions of an owner, executions from one origin) */
  workflowLimit: (message: string, details?: unknown) => new QuireError('WORKFLOW_LIMIT', message, details),
};

/** "100 MB", "1.5 MB", "512 KB", "100 bytes": a size as people read it (never "0 MB"). */
export function formatBytes(n: number): string {
  const MB = 1024 * 1024;
  if (n >= MB) return `${Number((n / MB).toFixed(n % MB === 0 ? 0 : 2))} MB`;
  if (n >= 1024) return `${Number((n / 1024).toFixed(n % 1024 === 0 ? 0 : 2))} KB`;
  return `${n} byte${n === 1 ? '' : 's'}`;
}

export function isQuireError(e: unknown): e is QuireError {
  return e instanceof QuireError;
}
