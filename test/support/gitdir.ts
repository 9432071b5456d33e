/** A real temp git repository in one line, removed when the test finishes. */
import { execa } from "execa";
import { mkdtempSync, realpathSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { onTestFinished } from "vitest";

/** Made in a beforeAll (outside any test): removed when the file's tests are done (test/support/setup.ts). */
const suiteDirs: string[] = [];

export function removeSuiteDirs(): void {
  for (const dir of suiteDirs.splice(0)) removeDir(dir);
}

/**
 * Retried: nudge's detached untracked-cache check (src/snapshot/untracked-cache.ts) outlives the
 * nudge a test ran and may still be writing its scratch folder under .git/nudge/index, so one
 * pass of rm can meet a folder that filled again (ENOTEMPTY). The check ends within seconds.
 */
function removeDir(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
  } catch {
    // Still being filled after the retries: a temp folder left behind is not the test's failure.
  }
}

/** A fresh temp dir, removed when the test finishes — or, made in a beforeAll, when the file's tests do. */
export function tempDir(prefix = "nudge-test-"): string {
  // realpath: macOS-style /tmp symlinks would make claude's cwd differ from ours.
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  try {
    onTestFinished(() => removeDir(dir));
  } catch {
    suiteDirs.push(dir); // not inside a test
  }
  return dir;
}

/** The test identity, also for repositories git makes itself (a submodule's clone has no config of ours). */
const IDENTITY = {
  GIT_AUTHOR_NAME: "Test",
  GIT_AUTHOR_EMAIL: "test@example.com",
  GIT_COMMITTER_NAME: "Test",
  GIT_COMMITTER_EMAIL: "test@example.com",
};

export async function git(cwd: string, ...args: string[]): Promise<string> {
  return (await execa("git", args, { cwd, env: IDENTITY })).stdout;
}

/** init, a local identity, no signing, no auto-gc, branch main, and a first commit of `files`. */
export async function gitdir(
  files: Record<string, string> = { "README.md": "# test repo\n" },
  o: { objectFormat?: "sha1" | "sha256"; /** the repository's folder name (else a random one) */ name?: string } = {},
): Promise<string> {
  const dir = o.name ? path.join(tempDir(), o.name) : tempDir();
  mkdirSync(dir, { recursive: true });
  await git(dir, "init", "-q", "-b", "main", `--object-format=${o.objectFormat ?? "sha1"}`);
  for (const [key, value] of Object.entries({
    "user.name": "Test",
    "user.email": "test@example.com",
    "commit.gpgSign": "false",
    "gc.auto": "0",
  })) {
    await git(dir, "config", key, value);
  }
  writeFiles(dir, files);
  await git(dir, "add", "-A");
  await git(dir, "commit", "-q", "-m", "first commit");
  return dir;
}

export function writeFiles(dir: string, files: Record<string, string | Buffer>): void {
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), content);
  }
}
