/**
 * Start a session from the page (the sessions page's New session), or continue one (a session's
 * Continue): a first prompt and the options `nudge claude run` takes. Continuing makes the choice
 * `claude run -r` makes: a rewound session goes on in a fork, and the page follows it there.
 */
import { useState } from "preact/hooks";
import { startLive } from "../live-session.js";
import { ErrorLine } from "./error-line.js";

export function StartSession({ resume, onStarted }: { resume?: string; onStarted: (id: string) => void }) {
  const [prompt, setPrompt] = useState("");
  const [model, setModel] = useState("");
  const [mode, setMode] = useState("default");
  const [allowed, setAllowed] = useState("");
  const [disallowed, setDisallowed] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [starting, setStarting] = useState(false);
  const label = resume ? "Continue" : "Start";
  const start = (e: Event) => {
    e.preventDefault();
    if (!prompt.trim() || starting) return;
    setStarting(true);
    setError(null);
    startLive({
      prompt,
      resume,
      model: model.trim() || undefined,
      permissionMode: mode === "default" ? undefined : mode,
      allowedTools: allowed.trim() || undefined,
      disallowedTools: disallowed.trim() || undefined,
    }).then(
      ({ id }) => onStarted(id),
      (err: unknown) => {
        setError(err);
        setStarting(false);
      },
    );
  };
  return (
    <form class="start-session" aria-label={resume ? "Continue this session" : "New session"} onSubmit={start}>
      <label class="prompt-box">
        {resume ? "Continue with" : "New session"}
        <textarea
          rows={3}
          value={prompt}
          placeholder="What should claude do?"
          onInput={(e) => setPrompt(e.currentTarget.value)}
        />
      </label>
      <details>
        <summary>Options</summary>
        <div class="row">
          <label>
            Model{" "}
            <input
              type="text"
              value={model}
              placeholder="claude's default"
              onInput={(e) => setModel(e.currentTarget.value)}
            />
          </label>
          <label>
            Permission mode{" "}
            <select value={mode} onChange={(e) => setMode(e.currentTarget.value)}>
              <option value="default">default (ask)</option>
              <option value="acceptEdits">acceptEdits</option>
              <option value="plan">plan</option>
              <option value="bypassPermissions">bypassPermissions</option>
            </select>
          </label>
          <label>
            Allowed tools{" "}
            <input
              type="text"
              value={allowed}
              placeholder="e.g. Bash(npm test)"
              onInput={(e) => setAllowed(e.currentTarget.value)}
            />
          </label>
          <label>
            Disallowed tools{" "}
            <input type="text" value={disallowed} onInput={(e) => setDisallowed(e.currentTarget.value)} />
          </label>
        </div>
      </details>
      <ErrorLine error={error} />
      <button type="submit" disabled={!prompt.trim() || starting}>
        {starting ? `${label}ing…` : label}
      </button>
    </form>
  );
}
