/** Which prompts are claude's own task notifications (a turn claude starts by itself), and which stay the user's. */
import { expect, test } from "vitest";
import { isTaskNotification, isTaskNotificationPrompt } from "../../src/claude/task-notification.js";

// As claude 2.1.329 passes it to UserPromptSubmit (measured; the path shortened).
const NOTIFICATION = [
  "<task-notification>",
  "<task-id>a744c7872d48b41e8</task-id>",
  "<tool-use-id>toolu_0001dwj5rnb7</tool-use-id>",
  "<output-file>/tmp/claude-0/x/tasks/a744c7872d48b41e8.output</output-file>",
  "<status>completed</status>",
  '<summary>Agent "write sub" finished</summary>',
  "<result>SUB DONE</result>",
  "</task-notification>",
].join("\n");

test("claude's notification is one; a prompt that only quotes or mentions it is the user's", () => {
  expect(isTaskNotificationPrompt(NOTIFICATION)).toBe(true);
  expect(isTaskNotificationPrompt(`${NOTIFICATION}\n`)).toBe(true);
  expect(isTaskNotificationPrompt(`why did you get this?\n${NOTIFICATION}`)).toBe(false);
  expect(isTaskNotificationPrompt(`${NOTIFICATION}\nand now fix the tests`)).toBe(false);
  expect(isTaskNotificationPrompt("<task-notification>")).toBe(false);
  expect(isTaskNotificationPrompt("<task-notification>\n<task-id>../x y</task-id>\n</task-notification>")).toBe(false);
  expect(isTaskNotificationPrompt("")).toBe(false);
});

test("under -p, the task_notification system line is the one", () => {
  expect(isTaskNotification({ type: "system", subtype: "task_notification" } as never)).toBe(true);
  expect(isTaskNotification({ type: "system", subtype: "task_updated" } as never)).toBe(false);
  expect(isTaskNotification({ type: "system", subtype: "init" } as never)).toBe(false);
});
