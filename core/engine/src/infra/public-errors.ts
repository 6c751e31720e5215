/**
 * Texts that are internal detail rather than something a user can act on: JavaScript exceptions, stack
 * frames, system errors with paths, a tool's stderr, database driver errors. Such a text is logged and
 * never shown: users get a generic message with the request id (or job id) that finds it in the log.
 */
const INTERNAL_TEXT: RegExp[] = [
  /Cannot (read|set) propert(y|ies) of/i,
  /\bis not (a function|a constructor|defined|iterable)\b/,
  /\b(undefined|null) is not an object\b/,
  /Maximum call stack size exceeded/,
  /Unexpected (token|end of JSON|non-whitespace)/,
  /\bat .+:\d+:\d+\)?$/m, // a stack frame
  /\b(E[A-Z]{2,}|ERR_[A-Z_]+): /, // ENOENT: no such file..., ERR_INVALID_ARG_TYPE: ...
  /(^|[\s'"(=])\/(usr|home|tmp|var|opt|srv|etc|proc|root|work|app|data|mnt|private)\//, // an absolute path
  /[A-Za-z]:\\[^\s]+\\/, // a Windows path
  /tesseract failed|leptonica|pixRead|Error in \w+:|Command failed:|exited with code \d+|SIGKILL|SIGSEGV/i,
  /heap out of memory|allocation failed/i,
  /\bSQLITE_[A-Z]+|\bER_[A-Z_]+|QueryFailedError|EntityMetadata/,
];

export function looksInternal(message: string): boolean {
  return INTERNAL_TEXT.some((r) => r.test(message));
}
