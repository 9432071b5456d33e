/**
 * Ending the process after the terminal went away. The exit status of a hang-up is that of a
 * process killed by SIGHUP (129 to a shell), and the clean way to get it is to be killed by
 * SIGHUP: Node 20 aborts with a native assertion when it exits normally with its terminal gone
 * (at exit it restores the terminal's settings and treats the EIO as a bug: nodejs/node#51519,
 * fixed in Node 24 by nodejs/node#58200), which would print a native stack trace and exit 134.
 * Call this once everything is written (the bundle complete, the lock released).
 */
export function exitAsHangUp(): void {
  // Our own SIGHUP listeners would catch it; without any, the default action ends the process.
  process.removeAllListeners("SIGHUP");
  process.kill(process.pid, "SIGHUP");
  // Should SIGHUP be ignored by whoever started us, exit with its number anyway.
  setTimeout(() => process.exit(129), 1000).unref();
}
