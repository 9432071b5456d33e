import { Command } from "commander";
import { sessionListCommand } from "./session-list.js";
import { sessionShowCommand } from "./session-show.js";

export const sessionCommand = new Command("session")
  .description("list, show, diff, replay, rewind, fork, export and import recorded sessions")
  .addCommand(sessionListCommand)
  .addCommand(sessionShowCommand);
