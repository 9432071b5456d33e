import { Command } from "commander";
import { claudeRunCommand } from "./claude-run.js";

export const claudeCommand = new Command("claude").description("work with Claude Code through nudge").addCommand(claudeRunCommand);
