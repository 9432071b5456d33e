/**
 * Where claude keeps its own copy of a conversation, which is what `--resume` reads:
 * `$CLAUDE_CONFIG_DIR/projects/<encoded cwd>/<session id>.jsonl` (config dir default ~/.claude).
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathExists } from "../base/file-exists.js";

/** Set but empty, claude takes its working folder (measured on the pinned claude): so does this, from `cwd`. */
export function claudeConfigDir(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string {
  return env.CLAUDE_CONFIG_DIR !== undefined
    ? path.resolve(cwd, env.CLAUDE_CONFIG_DIR)
    : path.join(os.homedir(), ".claude");
}

/** Every character outside [A-Za-z0-9] becomes "-" (claude cuts and hashes very long paths; see findTranscript). */
export function encodeProjectDir(cwd: string): string {
  return cwd.replace(/[^A-Za-z0-9]/g, "-");
}

export function transcriptPath(configDir: string, cwd: string, sessionId: string): string {
  return path.join(configDir, "projects", encodeProjectDir(cwd), `${sessionId}.jsonl`);
}

/** The transcript file for a session: the computed place first, else a search of projects/* (long paths). */
export async function findTranscript(configDir: string, cwd: string, sessionId: string): Promise<string | null> {
  const expected = transcriptPath(configDir, cwd, sessionId);
  if (await pathExists(expected)) return expected;
  const projects = path.join(configDir, "projects");
  let dirs: string[];
  try {
    dirs = await fs.readdir(projects);
  } catch {
    return null;
  }
  for (const dir of dirs) {
    const candidate = path.join(projects, dir, `${sessionId}.jsonl`);
    if (await pathExists(candidate)) return candidate;
  }
  return null;
}

/**
 * A file claude is writing in its session's side folder: it writes `agent-<id>.meta.json` (and
 * others) whole through a temp beside it, `<name>.tmp.<hex>`, renamed over the name. A copy
 * taken in that moment would keep the temp for good.
 */
export function claudeTempFile(name: string): boolean {
  return /\.tmp\.[0-9a-f]{4,}$/i.test(name);
}
