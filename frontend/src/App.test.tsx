import { render, screen } from "@testing-library/react";
import { MemoryRouter } from "react-router-dom";
import { App } from "./App";
import { SessionProvider } from "./auth/session";
import type { Role } from "./api/types";

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

function signedInAs(roles: Role[]) {
  vi.stubGlobal(
    "fetch",
    vi.fn(async (url: string) => {
      if (url === "/api/auth/me") return json({ user: { id: 7, username: "jan", roles, disabled: false }, csrf_token: "t" });
      if (url === "/api/health") return json({ status: "ok" });
      return json({ detail: "Geen toegang: hiervoor is de rol clinician nodig." }, 403);
    }),
  );
  render(
    <MemoryRouter initialEntries={["/"]}>
      <SessionProvider>
        <App />
      </SessionProvider>
    </MemoryRouter>,
  );
}

afterEach(() => vi.unstubAllGlobals());

describe("App", () => {
  it("tells an account without any role in Dutch what to do, and offers nothing else but signing out", async () => {
    signedInAs([]);
    const message = await screen.findByRole("alert");
    expect(message.textContent).toContain("Je account heeft nog geen rol in Vraagbaak");
    expect(message.textContent).toContain("beheerder");
    expect(screen.getByRole("button", { name: "Afmelden" })).toBeTruthy();
    expect(screen.queryByRole("link", { name: "Chat" })).toBeNull();
    expect(screen.queryByRole("textbox")).toBeNull();
  });

  it("takes an admin without the clinician role to the admin page, without a chat link", async () => {
    signedInAs(["admin"]);
    expect(await screen.findByRole("link", { name: "Beheer" })).toBeTruthy();
    expect(screen.queryByRole("link", { name: "Chat" })).toBeNull();
    expect(screen.queryByRole("textbox", { name: /vraag/i })).toBeNull();
  });

  it("shows the chat to a clinician", async () => {
    signedInAs(["clinician"]);
    expect(await screen.findByRole("link", { name: "Chat" })).toBeTruthy();
    expect(screen.queryByRole("link", { name: "Beheer" })).toBeNull();
  });
});
