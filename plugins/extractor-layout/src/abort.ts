import { throwIfAborted as stopIfAborted } from '@quire/core';

/** Stops between extraction steps with an AbortError once the caller's signal is aborted. */
export const throwIfAborted = (signal?: AbortSignal): void => stopIfAborted(signal, 'Extraction aborted');
