/**
 * A Copy button on each code block of rendered markdown. Added to the DOM the sanitizer's HTML
 * made (not HTML itself), after each render; the text copied is the block's text, not its markup.
 */
import { useEffect, useRef } from "preact/hooks";

export function useCopyButtons(source: string) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    for (const pre of ref.current?.querySelectorAll("pre") ?? []) {
      if (pre.parentElement?.classList.contains("code-block")) continue;
      const wrap = document.createElement("div");
      wrap.className = "code-block";
      pre.replaceWith(wrap);
      wrap.append(
        pre,
        copyButton(() => pre.textContent ?? ""),
      );
    }
  }, [source]);
  return ref;
}

function copyButton(text: () => string): HTMLButtonElement {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "copy";
  button.textContent = "Copy";
  button.addEventListener("click", () => {
    void copyText(text()).then(
      () => (button.textContent = "Copied"),
      () => (button.textContent = "Copy failed"),
    );
    setTimeout(() => (button.textContent = "Copy"), 1500);
  });
  return button;
}

/** The clipboard API where the page may use it (loopback is a secure context); a file:// page falls back to a selection. */
async function copyText(text: string): Promise<void> {
  if (navigator.clipboard?.writeText) return navigator.clipboard.writeText(text);
  const area = document.createElement("textarea");
  area.value = text;
  document.body.append(area);
  area.select();
  const ok = document.execCommand("copy");
  area.remove();
  if (!ok) throw new Error("copy refused");
}
