/**
 * The channel claude's hooks reach a `--tui` recording by: only a POST to the session's secret
 * path is answered; an event that is not a hook input, too large, or fails in nudge gets claude's
 * "no decision" (claude goes on), a guard's call is denied (claude would take "no decision" as an
 * allow); the settings holding the secret are readable by this user only.
 */
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HookServer } from "../../src/live/tui-hooks.js";
import { tempDir } from "../support/gitdir.js";

let server: HookServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const input = (event: string, extra: object = {}) =>
  JSON.stringify({ hook_event_name: event, session_id: "abc-123", ...extra });

describe("hook server", () => {
  it("answers only the secret path; a bad or failing call is claude's 'no decision'; the settings file is 0600 and names every recorded event and each guard", async () => {
    const seen: string[] = [];
    server = await HookServer.start({
      onEvent: (event, hook) => {
        seen.push(`${event}:${hook.prompt ?? ""}`);
        if (hook.prompt === "boom") throw new Error("nudge failed");
        return {};
      },
      onCallback: (id) => ({
        hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: id === "deny-me" ? "deny" : "allow" },
      }),
    });
    const file = path.join(tempDir(), "hooks.json");
    await server.writeSettings(file, { PreToolUse: [{ matcher: "^Bash$", hookCallbackIds: ["deny-me"] }] });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const hooks = JSON.parse(readFileSync(file, "utf8")).hooks as Record<
      string,
      Array<{ matcher: string; hooks: Array<{ type: string; url: string; timeout: number }> }>
    >;
    expect(Object.keys(hooks).sort()).toEqual(["PreToolUse", "Stop", "StopFailure", "UserPromptSubmit"]);
    const prompt = hooks.UserPromptSubmit![0]!.hooks[0]!;
    expect(prompt.type).toBe("http");
    expect(prompt.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{48}\/event\/UserPromptSubmit$/);
    const gate = hooks.PreToolUse![0]!;
    expect(gate.matcher).toBe("^Bash$");

    const post = (url: string, body: string) =>
      fetch(url, { method: "POST", body, headers: { "content-type": "application/json" } });
    expect(await (await post(prompt.url, input("UserPromptSubmit", { prompt: "hi" }))).json()).toEqual({});
    expect(await (await post(gate.hooks[0]!.url, input("PreToolUse", { tool_name: "Bash" }))).json()).toEqual({
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny" },
    });
    // Without the secret: nothing is handled.
    const guessed = prompt.url.replace(/\/[0-9a-f]{48}\//, `/${"0".repeat(48)}/`);
    expect((await post(guessed, input("UserPromptSubmit", { prompt: "intruder" }))).status).toBe(404);
    expect((await fetch(prompt.url)).status).toBe(404);
    // Not a hook input (no session id, a hostile one), or nudge fails: claude goes on.
    for (const body of [
      "not json",
      JSON.stringify({ hook_event_name: "UserPromptSubmit" }),
      input("UserPromptSubmit", { session_id: "../../etc" }),
      input("UserPromptSubmit", { prompt: "boom" }),
    ]) {
      const res = await post(prompt.url, body);
      expect([res.status, await res.json()]).toEqual([200, {}]);
    }
    expect(seen).toEqual(["UserPromptSubmit:hi", "UserPromptSubmit:boom"]);
  });

  it("a guard's call that nudge cannot read or judge is denied with a reason, never passed as claude's allow", async () => {
    server = await HookServer.start({
      onEvent: () => ({}),
      onCallback: (id) => {
        if (id === "rules") throw new Error("the rules could not be read");
        return { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" } };
      },
    });
    const hooks = server.settings({ PreToolUse: [{ matcher: "", hookCallbackIds: ["rules", "gate"] }] }) as {
      hooks: Record<string, Array<{ hooks: Array<{ url: string }> }>>;
    };
    const [rules, gate] = hooks.hooks.PreToolUse!.map((h) => h.hooks[0]!.url);
    const post = async (url: string, body: string) =>
      (await fetch(url, { method: "POST", body })).json() as Promise<{
        hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string };
      }>;
    const thrown = await post(rules!, input("PreToolUse", { tool_name: "Bash" }));
    expect(thrown.hookSpecificOutput?.permissionDecision).toBe("deny");
    expect(thrown.hookSpecificOutput?.permissionDecisionReason).toContain("the rules could not be read");
    for (const body of ["not json", JSON.stringify({ hook_event_name: "PreToolUse", session_id: "../x" })]) {
      const unread = await post(gate!, body);
      expect(unread.hookSpecificOutput?.permissionDecision).toBe("deny");
      expect(unread.hookSpecificOutput?.permissionDecisionReason).toMatch(/could not read this tool call/);
    }
    expect((await post(gate!, input("PreToolUse", { tool_name: "Bash" }))).hookSpecificOutput?.permissionDecision).toBe(
      "allow",
    );
  });
});
