/**
 * A turn claude starts by itself: when a background task of its (an Agent run in the background,
 * a background Bash command) ends while no turn runs, claude tells itself with a task notification
 * and answers it in a turn no prompt began. Under `-p` that is a `system/task_notification` line
 * after the last `result`; in claude's own UI a `UserPromptSubmit` whose prompt is the notification.
 */
import type { StreamEvent } from "./stream-events.js";

/** The prompt a turn claude started by itself is recorded under (no one typed one). */
export const CLAUDE_TURN_PROMPT = "(claude went on by itself after a background task)";

/** A stream-json line that starts such a turn when none is running. */
export function isTaskNotification(event: StreamEvent): boolean {
  return event.type === "system" && event.subtype === "task_notification";
}

/**
 * A prompt that is claude's notification, not something typed (claude's UI passes it to
 * UserPromptSubmit like a prompt). Its whole shape is asked for, so a prompt that only mentions
 * the tag stays the user's.
 */
export function isTaskNotificationPrompt(prompt: string): boolean {
  return /^<task-notification>\n<task-id>[A-Za-z0-9_-]{1,100}<\/task-id>\n[\s\S]*<\/task-notification>\s*$/.test(
    prompt,
  );
}
