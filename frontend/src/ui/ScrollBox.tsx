// A box that scrolls sideways when its table is wider than the screen; focusable and named, so keyboard users can
// scroll it too (axe: scrollable-region-focusable).
import type { ReactNode } from "react";

export function ScrollBox({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-scroll" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
