/**
 * nudge's hooks in a claude settings file: the user's bytes kept on install, put back exactly on
 * uninstall, and a later edit of the user's kept.
 */
import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { applySettingsPlan, hookCommand, planInstall, planUninstall } from "../../src/live/claude-settings-hooks.js";
import { tempDir } from "../support/gitdir.js";

const command = hookCommand("/usr/bin/node", "/opt/nudge dir/nudge.mjs");

function files(content?: string) {
  const dir = tempDir();
  const file = path.join(dir, ".claude", "settings.local.json");
  if (content !== undefined) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
  return { file, backup: path.join(dir, "store", "backup.json") };
}

async function install(f: { file: string; backup: string }) {
  await applySettingsPlan(await planInstall(f.file, f.backup, command));
}

async function uninstall(f: { file: string; backup: string }) {
  const plan = await planUninstall(f.file, f.backup);
  await applySettingsPlan(plan);
  return plan.action;
}

describe("claude settings hooks", () => {
  it.each([
    ["odd formatting", '{"permissions":   {"allow": ["Bash(ls:*)"]},\n\n\t"model" : "sonnet"   }'],
    ["an empty object", "{}"],
    [
      "hooks of the user's own",
      '{\n    "hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "say done"}]}]},\n    "x": 1\n}\n',
    ],
    ["a byte order mark and CRLF", '\uFEFF{\r\n  "model": "opus"\r\n}\r\n'],
  ])(
    "%s: the hooks are added beside the user's settings and uninstall puts back the same bytes",
    async (_, content) => {
      const f = files(content);
      const before = readFileSync(f.file);
      await install(f);
      const after = readFileSync(f.file, "utf8");
      const parsed = JSON.parse(after.replace(/^\uFEFF/, "")) as {
        hooks: Record<string, Array<{ hooks: Array<{ command: string; timeout: number }> }>>;
      };
      for (const event of ["SessionStart", "UserPromptSubmit", "PreToolUse", "Stop", "StopFailure", "SessionEnd"]) {
        expect(parsed.hooks[event]!.at(-1)!.hooks[0]).toMatchObject({ command, timeout: expect.any(Number) });
      }
      if (!content.includes('"hooks"'))
        expect(after).toContain(content.replace(/^\uFEFF?\{/, "")); // the user's bytes, untouched
      else expect(parsed.hooks.Stop![0]!.hooks[0]!.command).toBe("say done");
      expect((await planInstall(f.file, f.backup, command)).action).toBe("already");
      // nudge moved (an upgrade, another node): install again points the same entries at it, and uninstall still restores.
      const moved = hookCommand("/usr/local/bin/node", '/home/a "b"/nudge.mjs');
      await applySettingsPlan(await planInstall(f.file, f.backup, moved));
      expect(readFileSync(f.file, "utf8")).not.toContain(command.replace(/"/g, '\\"'));
      expect(JSON.parse(readFileSync(f.file, "utf8").replace(/^\uFEFF/, "")).hooks.Stop.at(-1).hooks[0].command).toBe(
        moved,
      );
      expect(await uninstall(f)).toBe("restore");
      expect(readFileSync(f.file).equals(before)).toBe(true);
      expect(existsSync(f.backup)).toBe(false);
    },
  );

  it("no file before: uninstall removes it; an edit after install is kept, only nudge's entries go", async () => {
    const none = files();
    await install(none);
    expect(existsSync(none.file)).toBe(true);
    expect(await uninstall(none)).toBe("restore");
    expect(existsSync(none.file)).toBe(false);
    expect(existsSync(path.dirname(none.file))).toBe(false); // .claude/ was made by install

    const f = files('{\n  "model": "opus"\n}\n');
    await install(f);
    writeFileSync(f.file, readFileSync(f.file, "utf8").replace('"opus"', '"haiku"'));
    expect(await uninstall(f)).toBe("remove-entries");
    expect(readFileSync(f.file, "utf8")).toBe('{\n  "model": "haiku"\n}\n');

    // Reformatted by some tool since: nudge's entries are found by their command, the user's stay.
    const g = files('{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "mine"}]}]}}');
    await install(g);
    writeFileSync(g.file, JSON.stringify(JSON.parse(readFileSync(g.file, "utf8")), null, 4));
    await uninstall(g);
    expect(JSON.parse(readFileSync(g.file, "utf8"))).toEqual({
      hooks: { Stop: [{ hooks: [{ type: "command", command: "mine" }] }] },
    });
  });

  it("a settings file that is not JSON is refused with a hint, and left as it is", async () => {
    const f = files('{"model": "opus",}');
    await expect(planInstall(f.file, f.backup, command)).rejects.toThrow(/is not valid JSON/);
    expect(readFileSync(f.file, "utf8")).toBe('{"model": "opus",}');
  });

  it("a settings file that is a link (dotfiles) or a folder is refused, never replaced by a file", async () => {
    const f = files();
    const dotfiles = path.join(tempDir(), "settings.json");
    writeFileSync(dotfiles, '{"model": "opus"}\n');
    mkdirSync(path.dirname(f.file), { recursive: true });
    symlinkSync(dotfiles, f.file);
    await expect(planInstall(f.file, f.backup, command)).rejects.toThrow(/is a link/);
    expect(lstatSync(f.file).isSymbolicLink()).toBe(true);
    expect(readFileSync(dotfiles, "utf8")).toBe('{"model": "opus"}\n');
    const folder = files();
    mkdirSync(folder.file, { recursive: true });
    await expect(planInstall(folder.file, folder.backup, command)).rejects.toThrow(/is not a file/);
  });
});
