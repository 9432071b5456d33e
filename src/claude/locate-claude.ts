import { promises as fs, constants } from "node:fs";
import path from "node:path";
import { UserError } from "../base/errors.js";

/** --claude-bin, then NUDGE_CLAUDE_BIN, then `claude` on PATH. */
export async function locateClaude(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const wanted = flag ?? env.NUDGE_CLAUDE_BIN;
  if (wanted) {
    const resolved = path.resolve(wanted);
    if (await isExecutable(resolved)) return resolved;
    throw new UserError(`claude not found at ${resolved}`, "pass the path of the claude executable with --claude-bin");
  }
  for (const dir of (env.PATH ?? "").split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, "claude");
    if (await isExecutable(candidate)) return candidate;
  }
  throw new UserError(
    "claude not found on PATH",
    "install Claude Code (npm i -g @anthropic-ai/claude-code) or pass --claude-bin / NUDGE_CLAUDE_BIN",
  );
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile()) return false;
    await fs.access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
