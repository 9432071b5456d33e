/**
 * Issue 24, on the page: when claude's result is in, the live state says the turn is over at
 * once (its status line stops showing claude at work), while the session still takes no prompt
 * until the turn's code is captured (`working(false)`), as before. The browser frontend alone:
 * the conversation calls it in this order (test/live/conversation-order.test.ts).
 */
import { describe, expect, it } from "vitest";
import { BrowserFrontend } from "../../src/web/live/browser-frontend.js";

describe("the live state at the end of a turn", () => {
  it("says the turn is over at claude's result, and takes the next prompt once the code is captured", async () => {
    let changes = 0;
    const live = new BrowserFrontend(() => changes++, { firstPrompt: null, cwd: process.cwd() });
    expect(live.send("write a.txt")).toBe("sent");
    expect(await live.prompts.next()).toBe("write a.txt"); // the conversation takes it
    live.working(true);
    expect(live.state().activity).toBe("starting");

    const before = changes;
    live.turnFinished({
      n: 1,
      status: "complete",
      result: null,
      startedAt: "2026-11-28T10:00:00.000Z",
      endedAt: "2026-11-28T10:00:01.000Z",
    });
    expect(changes).toBeGreaterThan(before); // the page is told now, not at the save
    expect(live.state()).toMatchObject({ busy: true, activity: "turn over, recording its changes" });
    expect(live.send("too early")).toBe("busy");

    live.working(false);
    expect(live.state()).toMatchObject({ busy: false, activity: null });
    expect(live.send("next")).toBe("sent");
  });
});
