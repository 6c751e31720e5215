/**
 * A periodic pass of a long-running process (the workflow scheduler, the retention job): one pass at a
 * time, so that a slow pass is not overtaken by the next; the timer does not keep the process alive, and
 * stop() waits for the pass in progress.
 */
export function everyInterval(intervalMs: number, pass: () => Promise<unknown>, onError: (err: Error) => void): { stop(): Promise<void> } {
  let running: Promise<unknown> | null = null;
  let stopped = false;
  const timer = setInterval(() => {
    if (stopped || running) return;
    running = pass()
      .catch((err) => onError(err as Error))
      .finally(() => (running = null));
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
