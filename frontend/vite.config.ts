import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";

// `vite` (dev server) proxies the API; `vite build` writes dist/, which nginx or the API serves.
export default defineConfig({
  plugins: [react()],
  server: { proxy: { "/api": "http://127.0.0.1:8000" } },
  test: { environment: "jsdom", globals: true, include: ["src/**/*.test.{ts,tsx}"] },
});
