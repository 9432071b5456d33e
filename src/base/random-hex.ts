/**
 * Random hex for unique temporary names beside a target (with the pid, and created with O_EXCL or
 * renamed onto only once: unique is all they need to be, not unguessable). Math.random, not
 * node:crypto: loading that costs a start ~7 ms, and the hooks claude waits on write such files.
 */
export function randomHex(bytes: number): string {
  let hex = "";
  for (let i = 0; i < bytes; i++)
    hex += Math.floor(Math.random() * 256)
      .toString(16)
      .padStart(2, "0");
  return hex;
}
