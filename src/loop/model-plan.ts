/**
 * Which model runs each iteration. `--model-strategy haiku,sonnet,opus` starts on the first and
 * moves one up after `--escalate-after` failed iterations in a row, and one down after an
 * iteration that passed (its check, its promise) but was not the end (the verifier refuted it).
 * With `--allow-model-hints`, a `<next-model>` in claude's last message picks the model of the
 * next iteration only (from the strategy's list when there is one).
 */
export interface ModelSettings {
  /** null: every iteration runs with claude's own --model (or its default). */
  strategy: string[] | null;
  escalateAfter: number;
  allowHints: boolean;
}

/** A model name as it may reach claude's argv: an alias or a full name, nothing else. */
export const MODEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,99}$/;

export class ModelPlan {
  private at = 0;
  private failures = 0;
  private hint: string | null = null;

  constructor(private readonly settings: ModelSettings) {}

  /** The model to ask for in the next iteration (undefined: the run's own flags decide). */
  next(): string | undefined {
    const chosen = this.hint ?? this.settings.strategy?.[this.at];
    this.hint = null;
    return chosen;
  }

  /** The iteration did not get there: a line to show when that moves the strategy up. */
  failed(): string | null {
    const list = this.settings.strategy;
    if (!list) return null;
    this.failures++;
    if (this.failures < this.settings.escalateAfter || this.at >= list.length - 1) return null;
    this.at++;
    this.failures = 0;
    return `↑ model ${list[this.at]} ${this.from()} (${this.settings.escalateAfter} failed iteration${this.settings.escalateAfter === 1 ? "" : "s"} on ${list[this.at - 1]}; --model-strategy)`;
  }

  /** The iteration passed but the loop goes on (a verifier refuted it): one step down, the failures count afresh. */
  passed(): string | null {
    this.failures = 0;
    const list = this.settings.strategy;
    if (!list || this.at === 0) return null;
    this.at--;
    return `↓ model ${list[this.at]} ${this.from()} (the last one passed; --model-strategy)`;
  }

  /** When the strategy's move takes effect: a hint claude gave for the next iteration comes first, so one line names one model. */
  private from(): string {
    return this.hint === null
      ? "from the next iteration"
      : `from the iteration after next: the next runs ${this.hint}, as claude asked`;
  }

  /** claude asked for a model (`<next-model>`): a line saying what became of it. */
  asked(name: string): string {
    if (!this.settings.allowHints)
      return `claude asked for <next-model>${name}</next-model>; ignored (--allow-model-hints lets it choose)`;
    if (!MODEL_NAME.test(name))
      return `claude asked for a model nudge will not pass to claude (<next-model> holds no model name); ignored`;
    const list = this.settings.strategy;
    if (list && !list.includes(name))
      return `claude asked for <next-model>${name}</next-model>, which is not in --model-strategy ${list.join(",")}; ignored`;
    this.hint = name;
    return `model ${name} for the next iteration, as claude asked (<next-model>)`;
  }
}
