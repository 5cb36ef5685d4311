import { useEffect } from "react";

/** Calls `poll` every `intervalMs` while `active`; used for ingestion jobs and evaluation reports. */
export function usePolling(poll: () => void, active: boolean, intervalMs = 1000): void {
  useEffect(() => {
    if (!active) return;
    const timer = window.setInterval(poll, intervalMs);
    return () => window.clearInterval(timer);
  }, [poll, active, intervalMs]);
}
