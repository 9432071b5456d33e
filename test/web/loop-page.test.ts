/**
 * A `claude loop --verify` session on the page (issue 20): each iteration says its number and
 * model, a verifier's turn its verdict, claude's reason shown as text. `session export --html` of
 * a real loop (real claude, scripted API) opened from file:// in real Chromium.
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it, onTestFinished } from "vitest";
import { browserForFile, watchedPage } from "../support/browser.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { runLoop } from "../support/loop.js";
import { runNudge } from "../support/run-nudge.js";

const browser = browserForFile();

describe("a loop on the page", () => {
  it("marks each iteration with its model and promise, and each verifier turn with its verdict", async () => {
    const repo = await gitdir();
    const { api, run, id } = await runLoop(
      repo,
      [
        { text: "Done! <promise>COMPLETE</promise>" },
        { text: "<verify-fail>the tests were <b>never</b> run</verify-fail>" },
        { text: "Now. <promise>COMPLETE</promise>" },
        { text: "<verify-pass/>" },
      ],
      ["make the tests pass", "--until-promise", "COMPLETE", "--verify", "--fresh"],
    );
    onTestFinished(() => api.close());
    expect(run.exitCode, run.stderr).toBe(0);
    const file = path.join(tempDir("nudge-html-"), "loop.html");
    const exported = await runNudge(["session", "export", id, "--html", "-o", file], { cwd: repo });
    expect(exported.exitCode, exported.stderr).toBe(0);

    const url = pathToFileURL(file).href;
    const { page, watch } = await watchedPage(browser(), (u) => u === url);
    await page.goto(url);
    const turn = (n: number) => page.getByRole("region", { name: `Turn ${n}` });
    await expect
      .poll(() => turn(1).locator("p.loop").textContent())
      .toMatch(/^iteration 1 · fresh · \S+ · promised COMPLETE$/);
    await expect
      .poll(() => turn(2).locator("p.loop").textContent())
      .toMatch(/^verifier of iteration 1 · \S+ · ✗ the tests were <b>never<\/b> run$/);
    expect(await turn(2).locator("p.loop b").count()).toBe(0); // claude's words are text, never markup
    await expect
      .poll(() => turn(4).locator("p.loop").textContent())
      .toMatch(/^verifier of iteration 2 · \S+ · ✓ pass$/);
    expect(watch.errors).toEqual([]);
  });
});
