import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { isLocked, processStart, sessionLock as acquireLock } from "../../src/store/locks.js";
import { openStore } from "../../src/store/store.js";
import { lockWorkTree, workTreeLockFile } from "../../src/store/work-tree-lock.js";
import { gitdir, tempDir } from "../support/gitdir.js";

describe("session lock", () => {
  it("is held by its owner, refused to a second taker, and free once released", async () => {
    const file = path.join(tempDir(), "lock");
    const lock = await acquireLock(file, "abcdefgh");
    expect(await isLocked(file)).toBe(true);
    // A second taker in another process sees it held (here: a lock naming a live process that is not us).
    const other = {
      host: os.hostname(),
      owner: { pid: process.ppid, started: processStart(process.ppid) },
      claude: null,
    };
    writeFileSync(file, JSON.stringify(other));
    await expect(acquireLock(file, "abcdefgh")).rejects.toThrow(/being recorded by another nudge process \(pid \d+\)/);
    await lock.release();
    expect(await isLocked(file)).toBe(false);
  });

  it("is stale when its pid now belongs to another process (reused after a crash or reboot)", async () => {
    const file = path.join(tempDir(), "lock");
    const reused = { host: os.hostname(), owner: { pid: process.ppid, started: "1" }, claude: null };
    writeFileSync(file, JSON.stringify(reused));
    expect(processStart(process.ppid)).not.toBe("1");
    expect(await isLocked(file)).toBe(false);
    const lock = await acquireLock(file, "abcdefgh"); // taken over
    expect(await isLocked(file)).toBe(true);
    await lock.release();
  });
});

describe("the work tree's lock", () => {
  const holder = (what: string) => ({
    host: os.hostname(),
    owner: { pid: process.ppid, started: processStart(process.ppid) },
    claude: null,
    what,
  });

  it("held by a recording: a rewind is refused at once, not after waiting, even if the recording ends meanwhile (QA)", async () => {
    const repo = await gitdir();
    const store = await openStore(repo);
    const file = workTreeLockFile(store, repo);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(holder("recording session abcdef0123")));
    // The recording ends a moment later: a rewind still waiting would take the lock and go ahead.
    const ends = setTimeout(() => rmSync(file, { force: true }), 300);
    try {
      await expect(lockWorkTree(store, repo, { what: "rewinding session x", waitMs: 5_000 })).rejects.toThrow(
        /session abcdef0123 is being recorded by another nudge process/,
      );
    } finally {
      clearTimeout(ends);
    }
  });

  it("held by a short command (another rewind): waited for, then taken", async () => {
    const repo = await gitdir();
    const store = await openStore(repo);
    const file = workTreeLockFile(store, repo);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(holder("rewinding session abcdef0123")));
    setTimeout(() => rmSync(file, { force: true }), 300);
    const lock = await lockWorkTree(store, repo, { what: "rewinding session x", waitMs: 5_000 });
    await lock.release();
  });
});

describe("a lock being written", () => {
  it("read empty between its creator's create and write, is waited for, never taken over (two holders at once)", async () => {
    const file = path.join(tempDir(), "lock");
    // Another process has just created the file and not yet written it.
    writeFileSync(file, "");
    const second = acquireLock(file, "abcdefgh");
    const taken = await Promise.race([
      second.then(
        () => "taken",
        () => "refused",
      ),
      sleep(150).then(() => "waiting"),
    ]);
    expect(taken).toBe("waiting");
    // Its write lands: a live process's lock (here the parent's, another live process).
    writeFileSync(
      file,
      JSON.stringify({
        host: os.hostname(),
        owner: { pid: process.ppid, started: processStart(process.ppid) },
        claude: null,
      }),
    );
    // Refused: as held by that process, or (given no time to wait) as one still being started.
    await expect(second).rejects.toThrow(/being recorded by another nudge process|another nudge is starting on it/);
  });
});
