import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';

/** What reapWithThisProcess returns: release() when the group has ended by itself (or was stopped cleanly). */
export interface GroupReaper {
  release(): void;
}

/**
 * Kills a detached child's process group (SIGKILL) when this process dies, however it dies: a crash, a
 * SIGKILL, a test runner's time limit. Chromium started by puppeteer or playwright runs in a process group
 * of its own (so that it can be killed with its helpers), which also means nothing kills it when its parent
 * is killed without running its exit handlers: it stays, orphaned, holding hundreds of MB.
 *
 * The reaper is a small shell (its own session, so a signal to this process's group does not reach it first)
 * that blocks reading a pipe from this process. The kernel closes the pipe when this process ends, for any
 * reason; the read returns and the shell kills the group. It costs no polling and no CPU while it waits.
 * release() ends the reaper without killing anything (call it once the group has exited by itself).
 * Linux and other POSIX systems; elsewhere (no /bin/sh) it does nothing.
 */
export function reapWithThisProcess(pgid: number): GroupReaper {
  if (process.platform === 'win32' || !Number.isInteger(pgid) || pgid <= 1) return { release() {} };
  let child;
  try {
    child = spawn('/bin/sh', ['-c', 'read -r _; kill -KILL "-$1" 2>/dev/null', 'quire-reaper', String(pgid)], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
  } catch {
    return { release() {} };
  }
  child.on('error', () => {});
  child.stdin!.on('error', () => {});
  // neither the reaper nor its pipe keeps this process alive
  child.unref();
  (child.stdin as unknown as Socket).unref();
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      try {
        child.kill('SIGKILL');
      } catch {
        /* gone */
      }
      child.stdin!.destroy();
    },
  };
}
