/**
 * The recorder end to end: the real claude binary, driven by the scripted API, changes a real
 * repository through Write, Edit and Bash over 3 turns fed on stdin; the bundle must hold all of
 * it exactly and the user's git state must be untouched.
 */
import { execa } from "execa";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { claudeEnv } from "../support/claude-env.js";
import { git, gitdir, tempDir, writeFiles } from "../support/gitdir.js";
import { readManifestFile } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";
import { teeClaude } from "../support/tee-claude.js";
import { transcriptCopy } from "../support/transcript-copy.js";
import { pieceNames, readStreamOf } from "../support/stream.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const sha = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");

async function userGitState(repo: string) {
  return {
    head: await git(repo, "rev-parse", "HEAD"),
    symbolic: await git(repo, "symbolic-ref", "HEAD"),
    branches: await git(repo, "for-each-ref", "refs/heads", "refs/tags"),
    stash: await git(repo, "stash", "list"),
    index: sha(path.join(repo, ".git", "index")),
  };
}

describe("nudge claude run records a session", () => {
  it("records 3 turns of Write, Edit and Bash: bytes, patches, trees, and leaves git alone", async () => {
    const repo = await gitdir({
      ".gitignore": "*.log\n",
      "keep.txt": "line one\nline two\n",
      "old-name.txt": "to be renamed\n",
      "doomed.txt": "to be deleted\n",
      "script.sh": "#!/bin/sh\necho hi\n",
    });
    // Uncommitted work at the start belongs to turn 0: a staged edit, an untracked file, an ignored one.
    writeFiles(repo, {
      "keep.txt": "line one\nline two\nline three\n",
      "notes.md": "untracked\n",
      "debug.log": "ignored\n",
    });
    await git(repo, "add", "keep.txt");
    const before = await userGitState(repo);

    api = await startScriptedApi([
      // turn 1: create a file with Write
      { tool: "Write", input: { file_path: path.join(repo, "src/new.ts"), content: "export const x = 1;\n" } },
      { text: "Created src/new.ts." },
      // turn 2: Edit needs a Read first
      { tool: "Read", input: { file_path: path.join(repo, "keep.txt") } },
      { tool: "Edit", input: { file_path: path.join(repo, "keep.txt"), old_string: "line two", new_string: "line 2" } },
      { text: "Edited keep.txt." },
      // turn 3: Bash deletes, renames, chmods, writes a binary file and a symlink, and an ignored log
      {
        tool: "Bash",
        input: {
          command:
            "rm doomed.txt && mv old-name.txt renamed.txt && chmod +x script.sh && printf '\\000\\001\\002\\377binary' > blob.bin && ln -s keep.txt link.txt && echo noise > run.log",
          description: "shuffle files",
        },
      },
      { text: "Shuffled." },
    ]);
    const scratch = tempDir();
    const tee = teeClaude(scratch);
    const run = await runNudge(
      [
        "claude",
        "run",
        "--claude-bin",
        tee.bin,
        "--permission-mode",
        "acceptEdits",
        "--allowed-tools",
        "Bash",
        "add src/new.ts",
      ],
      {
        cwd: repo,
        env: claudeEnv(api, path.join(scratch, "claude-config")),
        input: "change line two\nshuffle the files\n",
      },
    );
    expect(run.stderr).not.toMatch(/error|bug/i);
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toContain("⏺ Write(src/new.ts)");
    expect(run.stderr).toContain("⏺ Bash(rm doomed.txt");
    expect(run.stderr).toMatch(/turn 3 · success/);

    // The files really changed on disk.
    expect(readFileSync(path.join(repo, "keep.txt"), "utf8")).toBe("line one\nline 2\nline three\n");
    expect(existsSync(path.join(repo, "doomed.txt"))).toBe(false);

    const list = JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout);
    expect(list).toHaveLength(1);
    expect(list[0].turns).toBe(3);
    const show = JSON.parse(
      (await runNudge(["session", "show", list[0].id.slice(0, 4), "--json"], { cwd: repo })).stdout,
    );
    const bundle: string = show.path;
    expect(bundle).toBe(path.join(repo, ".git", "nudge", "sessions", list[0].id));

    const manifest = readManifestFile(bundle);
    expect(manifest.state).toBe("complete");
    expect(manifest.turns.map((t) => [t.n, t.prompt, t.status])).toEqual([
      [0, null, "complete"],
      [1, "add src/new.ts", "complete"],
      [2, "change line two", "complete"],
      [3, "shuffle the files", "complete"],
    ]);
    expect(manifest.repo.baseCommit).toBe(before.head);
    expect(manifest.claude.version).toBe("2.1.329");

    // conversation.jsonl is claude's stdout, byte for byte; every line has an arrival time.
    const conversation = readStreamOf(bundle);
    expect(conversation.equals(readFileSync(tee.stdoutFile))).toBe(true);
    const lineCount = conversation.toString("utf8").split("\n").length - 1;
    expect(readFileSync(path.join(bundle, "timing.txt"), "utf8").trim().split("\n")).toHaveLength(lineCount);
    expect(manifest.turns.at(-1)!.lines.to).toBe(lineCount);
    // Kept compressed once the session ended (issue 24): all of it in gzipped pieces, none plain.
    expect(readFileSync(path.join(bundle, "conversation.jsonl"))).toHaveLength(0);
    expect(pieceNames(bundle).length).toBeGreaterThan(0);
    expect(pieceNames(bundle).every((n) => n.endsWith(".jsonl.gz"))).toBe(true);
    const stored = pieceNames(bundle).reduce(
      (sum, n) => sum + statSync(path.join(bundle, "conversation.d", n)).size,
      0,
    );
    expect(stored).toBeLessThan(conversation.length / 4);
    for (const turn of manifest.turns.slice(1)) {
      const lines = conversation.toString("utf8").split("\n").slice(turn.lines.from, turn.lines.to);
      expect(JSON.parse(lines.at(-1)!).type).toBe("result");
      expect(turn.result?.costUsd).toBeGreaterThan(0);
      expect(turn.lastAssistantUuid).toMatch(/^[0-9a-f-]{36}$/);
      expect(transcriptCopy(bundle, turn.transcript!).length).toBeGreaterThanOrEqual(turn.transcriptBytes!);
    }

    // Applying the patches in order onto the base commit reproduces every recorded tree.
    const index = path.join(scratch, "replay-index");
    const env = { ...process.env, GIT_INDEX_FILE: index };
    await execa("git", ["read-tree", manifest.repo.baseCommit!], { cwd: repo, env });
    for (const turn of manifest.turns) {
      const patch = path.join(bundle, turn.patch.file);
      expect(sha(patch)).toBe(turn.patch.sha256);
      if (turn.patch.bytes > 0) await execa("git", ["apply", "--cached", "--binary", patch], { cwd: repo, env });
      expect((await execa("git", ["write-tree"], { cwd: repo, env })).stdout).toBe(turn.snapshot.tree);
      // One ref per session keeps every turn: each snapshot is an ancestor of it.
      expect(await git(repo, "rev-parse", `${turn.snapshot.commit}^{tree}`)).toBe(turn.snapshot.tree);
      await git(repo, "merge-base", "--is-ancestor", turn.snapshot.commit, `refs/nudge/sessions/${manifest.id}`);
    }

    // Turn 0 holds the uncommitted start; ignored files are never captured.
    const tree0 = await git(repo, "ls-tree", "-r", "--name-only", manifest.turns[0]!.snapshot.tree);
    expect(tree0.split("\n")).toEqual(expect.arrayContaining(["notes.md", "keep.txt"]));
    expect(await git(repo, "show", `${manifest.turns[0]!.snapshot.tree}:keep.txt`)).toContain("line three");
    const tree3 = await git(repo, "ls-tree", "-r", manifest.turns[3]!.snapshot.tree);
    expect(tree3).toMatch(/^100755 blob \S+\tscript\.sh$/m);
    expect(tree3).toMatch(/^120000 blob \S+\tlink\.txt$/m);
    expect(tree3).toMatch(/\tblob\.bin$/m);
    expect(tree3).toMatch(/\trenamed\.txt$/m);
    expect(tree3).not.toMatch(/doomed\.txt|old-name\.txt|\.log/);
    expect(manifest.turns[3]!.patch).toMatchObject({ binaryFiles: 1 });

    // The user's HEAD, index, branches and stash are exactly as they were.
    expect(await userGitState(repo)).toEqual(before);
  });

  it("keeps a line that is not JSON and warns, without failing the session", async () => {
    const repo = await gitdir();
    const scratch = tempDir();
    // A claude that prints a stray non-JSON line before handing over to the real binary.
    const noisy = path.join(scratch, "noisy-claude.sh");
    writeFileSync(
      noisy,
      `#!/usr/bin/env bash\necho 'Debugger listening on ws://x'\nexec "${(await import("../support/claude-env.js")).CLAUDE_BIN}" "$@"\n`,
      { mode: 0o755 },
    );
    api = await startScriptedApi([{ text: "hello back" }]);
    const run = await runNudge(["claude", "run", "--claude-bin", noisy, "hello"], {
      cwd: repo,
      env: claudeEnv(api, path.join(scratch, "cfg")),
    });
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toContain("not JSON (line 1); kept as is");
    expect(run.stdout).toContain("hello back");
    const [session] = JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout);
    const conversation = readStreamOf(session.path).toString("utf8");
    expect(conversation.startsWith("Debugger listening on ws://x\n")).toBe(true);
    expect(session.turns).toBe(1);
  });

  it("captures a symlink that already existed at the start in turn 0", async () => {
    const repo = await gitdir();
    symlinkSync("README.md", path.join(repo, "readme-link"));
    const scratch = tempDir();
    api = await startScriptedApi([{ text: "ok" }]);
    const run = await runNudge(
      ["claude", "run", "--claude-bin", (await import("../support/claude-env.js")).CLAUDE_BIN, "hi"],
      {
        cwd: repo,
        env: claudeEnv(api, path.join(scratch, "cfg")),
      },
    );
    expect(run.exitCode).toBe(0);
    const [session] = JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout);
    const tree = await git(repo, "ls-tree", readManifestFile(session.path).turns[0]!.snapshot.commit);
    expect(tree).toMatch(/^120000 blob \S+\treadme-link$/m);
  });
});

describe("nudge's and claude's own files inside the work tree", () => {
  it("are never snapshotted: NUDGE_STORE and CLAUDE_CONFIG_DIR inside the repository", async () => {
    const repo = await gitdir();
    const local = await startScriptedApi([
      { tool: "Write", input: { file_path: path.join(repo, "made.txt"), content: "x\n" } },
      { text: "done" },
    ]);
    try {
      const env = { ...claudeEnv(local, path.join(repo, "claude-home")), NUDGE_STORE: path.join(repo, "nudge-store") };
      const { CLAUDE_BIN } = await import("../support/claude-env.js");
      const run = await runNudge(
        ["claude", "run", "--claude-bin", CLAUDE_BIN, "--permission-mode", "acceptEdits", "make a file"],
        { cwd: repo, env },
      );
      expect(run.exitCode, run.stderr).toBe(0);
      const [session] = JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo, env })).stdout);
      expect(session.path.startsWith(path.join(repo, "nudge-store"))).toBe(true);
      const files = await git(
        repo,
        "ls-tree",
        "-r",
        "--name-only",
        readManifestFile(session.path).turns[1]!.snapshot.commit,
      );
      expect(files.split("\n").sort()).toEqual(["README.md", "made.txt"]);
    } finally {
      await local.close();
    }
  });
});

describe("the claude process", () => {
  it("has its stderr drained and saved (1 MB, far past a pipe's buffer), and gets the args after -- verbatim", async () => {
    const repo = await gitdir();
    const scratch = tempDir();
    const { CLAUDE_BIN } = await import("../support/claude-env.js");
    const argsFile = path.join(scratch, "args.txt");
    const wrapper = path.join(scratch, "chatty-claude.sh");
    writeFileSync(
      wrapper,
      `#!/usr/bin/env bash\nprintf '%s\\n' "$@" > "${argsFile}"\nhead -c 1048576 /dev/zero | tr '\\0' 'e' >&2\nexec "${CLAUDE_BIN}" "$@"\n`,
      { mode: 0o755 },
    );
    const local = await startScriptedApi([{ text: "fine" }]);
    try {
      const run = await runNudge(
        ["claude", "run", "--claude-bin", wrapper, "hello", "--", "--append-system-prompt", "PASSTHRU MARK"],
        {
          cwd: repo,
          env: claudeEnv(local, path.join(scratch, "cfg")),
        },
      );
      expect(run.exitCode, run.stderr).toBe(0);
      expect(readFileSync(argsFile, "utf8")).toContain("--append-system-prompt\nPASSTHRU MARK\n");
      expect(JSON.stringify(local.mainLoopRequests()[0]!.body.system)).toContain("PASSTHRU MARK");
      const [session] = JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout);
      expect(readFileSync(path.join(session.path, "claude-stderr.log")).length).toBeGreaterThanOrEqual(1048576);
      expect(session.firstPrompt).toBe("hello");
    } finally {
      await local.close();
    }
  });
});
