/**
 * "Expand all" / "Collapse all": every tool call and thought on the page opened or closed, and
 * those drawn later (turns fetched as they near the screen) drawn the same way.
 */
let open = false;

export const openByDefault = (): boolean => open;

export function setDisclosure(to: boolean): void {
  open = to;
  for (const d of document.querySelectorAll<HTMLDetailsElement>("#turns details.tool, #turns details.thinking"))
    d.open = to;
}
