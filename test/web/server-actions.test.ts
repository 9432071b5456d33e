/**
 * The page's actions over real HTTP, on a real recorded session: each answers the CLI's own plan
 * first and changes nothing; the apply needs the confirm token of the plan shown, and a plan that
 * changed meanwhile (the work tree edited) is answered 409 with the fresh plan, nothing done.
 * Then: a rewind puts turn 1's files back; an export is downloaded once; a fork goes into a new
 * worktree; rm removes a session.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { git, tempDir } from "../support/gitdir.js";
import { runNudge } from "../support/run-nudge.js";
import { serveThreeTurnsForFile, type WebServerRun } from "../support/web-server.js";

let repo = "";
let id = "";
let web: WebServerRun;
serveThreeTurnsForFile((served) => ((repo = served.repo), (id = served.id), (web = served.web)));

interface Shown {
  plan: string[];
  question: string;
  confirmToken: string;
}
const json = <T>(answer: { body: string }) => JSON.parse(answer.body) as T;
const notes = () => readFileSync(path.join(repo, "notes.txt"), "utf8");

describe("nudge web: actions", () => {
  it("rewinds only after the confirmation of the plan shown; a stale or missing confirm token is 409 with the fresh plan", async () => {
    const cli = await runNudge(["session", "rewind", id, "1", "--dry-run"], { cwd: repo });
    const asked = await web.post(`/api/sessions/${id}/rewind`, { confirm: false, turn: 1 });
    expect(asked.status).toBe(200);
    const shown = json<Shown>(asked);
    expect(shown.plan).toEqual(cli.stdout.trimEnd().split("\n")); // the CLI's own --dry-run plan
    expect(shown.question).toBe(`rewind ${id} to turn 1?`);
    expect(notes()).toBe("alpha\nBETA\ngamma\n");

    for (const confirmToken of [undefined, "", shown.confirmToken.replace(/.$/, (c) => (c === "A" ? "B" : "A"))]) {
      const refused = await web.post(`/api/sessions/${id}/rewind`, {
        confirm: true,
        turn: 1,
        ...(confirmToken === undefined ? {} : { confirmToken }),
      });
      expect(refused.status).toBe(409);
    }
    // The same token does not confirm another turn.
    expect(
      (await web.post(`/api/sessions/${id}/rewind`, { confirm: true, turn: 2, confirmToken: shown.confirmToken }))
        .status,
    ).toBe(409);
    expect(notes()).toBe("alpha\nBETA\ngamma\n");

    // The work tree changes between the question and the answer: the plan shown no longer holds.
    writeFileSync(path.join(repo, "mine.txt"), "written by hand\n");
    const stale = await web.post(`/api/sessions/${id}/rewind`, {
      confirm: true,
      turn: 1,
      confirmToken: shown.confirmToken,
    });
    expect(stale.status).toBe(409);
    const fresh = json<Shown & { error: string }>(stale);
    expect(fresh.error).toBe("the plan changed since it was shown; nothing was changed");
    expect(fresh.plan.join("\n")).toContain("mine.txt");
    expect(notes()).toBe("alpha\nBETA\ngamma\n");

    const applied = await web.post(`/api/sessions/${id}/rewind`, {
      confirm: true,
      turn: 1,
      confirmToken: fresh.confirmToken,
    });
    expect(applied.status).toBe(200);
    expect(json<{ done: string[] }>(applied).done[0]).toMatch(
      /^rewound to turn 1 · backup refs\/nudge\/backup\/\S+ · undo: nudge session rewind --undo$/,
    );
    expect(notes()).toBe("alpha\nbeta\ngamma\n");
    expect(existsSync(path.join(repo, "mine.txt"))).toBe(false); // kept in the backup, as the CLI does
    const undo = await runNudge(["session", "rewind", "--undo", "--yes"], { cwd: repo });
    expect(undo.exitCode, undo.stderr).toBe(0);
    expect(notes()).toBe("alpha\nBETA\ngamma\n");
    expect(readFileSync(path.join(repo, "mine.txt"), "utf8")).toBe("written by hand\n");
  });

  it("a turn the session does not have is a 404 alike for reading it and acting on it (QA: 400 on GET, 409 on the actions)", async () => {
    const answers = [
      await web.get(`/api/sessions/${id}/turns/99`),
      await web.post(`/api/sessions/${id}/rewind`, { confirm: false, turn: 99 }),
      await web.post(`/api/sessions/${id}/fork`, { confirm: false, turn: 99, worktree: "../elsewhere" }),
      await web.post(`/api/sessions/${id}/export`, { confirm: false, upto: 99 }),
    ];
    for (const answer of answers) {
      expect(answer.status, answer.body).toBe(404);
      expect(json<{ error: string }>(answer).error).toBe(`session ${id} has no turn 99`);
    }
  });

  it("exports to a download that can be taken once", async () => {
    const shown = json<Shown>(await web.post(`/api/sessions/${id}/export`, { confirm: false, upto: null }));
    expect(shown.plan[0]).toBe(
      `export session ${id}: turns 0 to 3, as one .tar.gz any clone of the repository can import`,
    );
    const applied = await web.post(`/api/sessions/${id}/export`, {
      confirm: true,
      upto: null,
      confirmToken: shown.confirmToken,
    });
    expect(applied.status, applied.body).toBe(200);
    const { done, download } = json<{ done: string[]; download: string }>(applied);
    expect(done.at(-1)).toBe(`import it in any clone of the repository: nudge session import nudge-${id}.tar.gz`);
    expect(download).toMatch(/^\/api\/downloads\/[A-Za-z0-9_-]{32}$/);
    // A download needs the cookie too.
    expect((await web.request(download)).status).toBe(403);
    const file = await new Promise<Buffer>((resolve, reject) => {
      void import("node:http").then((http) =>
        http
          .get(
            {
              host: "127.0.0.1",
              port: web.port,
              path: download,
              headers: { host: `127.0.0.1:${web.port}`, cookie: web.cookie },
            },
            (res) => {
              expect(res.headers["content-disposition"]).toBe(`attachment; filename="nudge-${id}.tar.gz"`);
              const chunks: Buffer[] = [];
              res.on("data", (c: Buffer) => chunks.push(c)).on("end", () => resolve(Buffer.concat(chunks)));
            },
          )
          .on("error", reject),
      );
    });
    expect(file.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    // A nudge export: a tar holding its index.
    const tar = gunzipSync(file);
    expect(tar.subarray(0, 100).toString()).toMatch(new RegExp(`^nudge-${id}/`));
    expect(tar.includes("nudge-export.json")).toBe(true);
    expect((await web.get(download)).status).toBe(404); // once
  });

  it("forks into a new worktree, and rm removes a session, each after its plan", async () => {
    const dir = path.join(tempDir(), "try-b");
    const shown = json<Shown>(await web.post(`/api/sessions/${id}/fork`, { confirm: false, turn: 2, worktree: dir }));
    expect(shown.plan[0]).toContain(`fork session ${id} at turn 2 into a new git worktree at ${dir}`);
    expect(existsSync(dir)).toBe(false);
    const forked = json<{ done: string[] }>(
      await web.post(`/api/sessions/${id}/fork`, {
        confirm: true,
        turn: 2,
        worktree: dir,
        confirmToken: shown.confirmToken,
      }),
    );
    const forkId = /→ (\w+)$/.exec(forked.done[0]!)![1]!;
    expect(readFileSync(path.join(dir, "notes.txt"), "utf8")).toBe("alpha\nBETA\ngamma\n");

    const rm = json<Shown>(await web.post(`/api/sessions/${forkId}/rm`, { confirm: false }));
    expect(rm.plan[0]).toMatch(new RegExp(`^remove session ${forkId} · 2 turns`));
    const removed = await web.post(`/api/sessions/${forkId}/rm`, { confirm: true, confirmToken: rm.confirmToken });
    expect(json<{ done: string[] }>(removed).done[0]).toBe("removed 1 session, 1 ref");
    expect((await web.get(`/api/sessions/${forkId}`)).status).toBe(404);
    expect(await git(repo, "for-each-ref", `refs/nudge/sessions/${forkId}`)).toBe("");
  });
});
