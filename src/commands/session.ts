import { Command } from "commander";
import { sessionListCommand } from "./session-list.js";
import { sessionShowCommand } from "./session-show.js";
import { sessionDiffCommand } from "./session-diff.js";
import { sessionReplayCommand } from "./session-replay.js";
import { sessionRewindCommand } from "./session-rewind.js";
import { sessionForkCommand } from "./session-fork.js";
import { sessionRmCommand } from "./session-rm.js";
import { sessionGcCommand } from "./session-gc.js";
import { sessionBackupsCommand } from "./session-backups.js";
import { sessionExportCommand } from "./session-export.js";
import { sessionImportCommand } from "./session-import.js";

export const sessionCommand = new Command("session")
  .description("list, show, diff, replay, rewind, fork, export, import and remove recorded sessions")
  .addCommand(sessionListCommand)
  .addCommand(sessionShowCommand)
  .addCommand(sessionDiffCommand)
  .addCommand(sessionReplayCommand)
  .addCommand(sessionRewindCommand)
  .addCommand(sessionForkCommand)
  .addCommand(sessionExportCommand)
  .addCommand(sessionImportCommand)
  .addCommand(sessionBackupsCommand)
  .addCommand(sessionRmCommand)
  .addCommand(sessionGcCommand);
