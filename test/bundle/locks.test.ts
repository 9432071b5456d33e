import { writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isLocked, processStart, sessionLock as acquireLock } from "../../src/bundle/locks.js";
import { tempDir } from "../support/gitdir.js";

describe("session lock", () => {
  it("is held by its owner, refused to a second taker, and free once released", async () => {
    const file = path.join(tempDir(), "lock");
    const lock = await acquireLock(file, "abcdefgh");
    expect(await isLocked(file)).toBe(true);
    // A second taker in another process sees it held (here: a lock naming a live process that is not us).
    const other = { host: os.hostname(), owner: { pid: process.ppid, started: processStart(process.ppid) }, claude: null };
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
