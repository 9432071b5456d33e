import { Command } from "commander";
import { claudeLoopCommand } from "./claude-loop.js";
import { claudeRunCommand } from "./claude-run.js";

export const claudeCommand = new Command("claude")
  .description("work with Claude Code through nudge")
  .addCommand(claudeRunCommand)
  .addCommand(claudeLoopCommand);
