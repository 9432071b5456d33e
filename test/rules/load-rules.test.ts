/** Finding the rules file in a repository (fixtures/rules/<case>/.nudge, copied to a temp dir). */
import { describe, expect, it } from "vitest";
import { UserError } from "../../src/base/errors.js";
import { loadRules } from "../../src/rules/load-rules.js";
import { copyFixture } from "../support/fixture-dir.js";
import { tempDir } from "../support/gitdir.js";

async function loadError(root: string): Promise<UserError> {
  const error = await loadRules(root).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UserError);
  return error as UserError;
}

describe("loadRules", () => {
  it("loads .nudge/rules.yaml", async () => {
    const rules = await loadRules(copyFixture("rules", "sample"));
    expect(rules.file).toBe(".nudge/rules.yaml");
    expect(rules.rules.map((r) => r.id)).toEqual([
      "no-npm",
      "ask-before-push",
      "secrets",
      "tests-run-freely",
      "typed-code",
    ]);
  });

  it("loads .nudge/rules.yml", async () => {
    const rules = await loadRules(copyFixture("rules", "yml"));
    expect(rules.file).toBe(".nudge/rules.yml");
    expect(rules.rules.map((r) => r.id)).toEqual(["no-curl"]);
  });

  it("has no rules without a rules file", async () => {
    expect(await loadRules(tempDir())).toEqual({ file: null, rules: [] });
  });

  it("refuses two rules files rather than pick one", async () => {
    const error = await loadError(copyFixture("rules", "both"));
    expect(error.message).toBe("both .nudge/rules.yaml and .nudge/rules.yml exist");
  });

  it("refuses a rules file in another format rather than ignore it", async () => {
    const error = await loadError(copyFixture("rules", "toml"));
    expect(error.message).toBe(".nudge/rules.toml: nudge reads rules from .nudge/rules.yaml only");
    expect(error.hint).toContain("rename it to .nudge/rules.yaml");
  });

  it.each([
    ["broken-yaml", ".nudge/rules.yaml:5:5: not valid YAML"],
    ["unknown-key", '.nudge/rules.yaml:6:7: rule "no-npm": unknown key "comand" in match'],
    ["bad-regex", '.nudge/rules.yaml:7:23: rule "no-rm": command is not a valid regular expression'],
    ["bad-glob", '.nudge/rules.yaml:4:20: rule "lockfiles": path "pnpm-lock.{yaml" is not a valid glob'],
  ])("reports %s as one error naming the place", async (name, message) => {
    expect((await loadError(copyFixture("rules", name))).message).toContain(message);
  });
});
