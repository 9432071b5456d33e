/** A failed request as one line and its hint, as the CLI prints an error. */
import { ApiError } from "../source.js";

export function ErrorLine({ error }: { error: unknown }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  const hint = error instanceof ApiError ? error.hint : null;
  return (
    <p class="error" role="alert">
      {message}
      {hint ? <span class="hint">{hint}</span> : null}
    </p>
  );
}
