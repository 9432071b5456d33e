/**
 * A stand-in `claude` that runs the real binary and copies its stdout, byte for byte, to a file:
 * an independent witness of what claude wrote, to compare with nudge's recording.
 */
import { chmodSync, writeFileSync } from "node:fs";
import path from "node:path";
import { CLAUDE_BIN } from "./claude-env.js";

export function teeClaude(dir: string): { bin: string; stdoutFile: string } {
  const stdoutFile = path.join(dir, "claude-stdout.bin");
  const bin = path.join(dir, "claude-tee.sh");
  writeFileSync(bin, `#!/usr/bin/env bash\n"${CLAUDE_BIN}" "$@" | tee -a "${stdoutFile}"\nexit \${PIPESTATUS[0]}\n`);
  chmodSync(bin, 0o755);
  return { bin, stdoutFile };
}
