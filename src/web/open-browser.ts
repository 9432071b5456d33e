/**
 * Open a URL in the user's browser, if there is one to open: never on a machine without a display
 * (ssh, CI) or when stdout is not a terminal (a script captures the URL). Detached and silent: a
 * browser's chatter never reaches nudge's output, and a missing opener is no error (the URL is
 * printed anyway).
 */
import { spawn } from "node:child_process";

export function canOpenBrowser(env: NodeJS.ProcessEnv = process.env): boolean {
  if (!process.stdout.isTTY) return false;
  if (process.platform === "linux") return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
  return true;
}

export function openBrowser(url: string): void {
  const [command, args] =
    process.platform === "darwin"
      ? ["open", [url]]
      : process.platform === "win32"
        ? ["cmd", ["/c", "start", '""', url.replace(/&/g, "^&")]]
        : ["xdg-open", [url]];
  try {
    const child = spawn(command, args, { detached: true, stdio: "ignore" });
    child.on("error", () => undefined);
    child.unref();
  } catch {
    // No opener: the printed URL is the way in.
  }
}
