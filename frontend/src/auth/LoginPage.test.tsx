import { render, screen, waitFor } from "@testing-library/react";
import { LoginPage } from "./LoginPage";
import { SessionProvider } from "./session";

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

function serveApi(config: () => Response) {
  const fetch = vi.fn(async (url: string) => {
    if (url === "/api/auth/config") return config();
    if (url === "/api/auth/me") return json({ detail: "Niet aangemeld. Meld je opnieuw aan." }, 401);
    return json({ detail: "Niet gevonden." }, 404);
  });
  vi.stubGlobal("fetch", fetch);
  return fetch;
}

function renderLogin() {
  render(
    <SessionProvider>
      <LoginPage />
    </SessionProvider>,
  );
}

afterEach(() => vi.unstubAllGlobals());

describe("LoginPage", () => {
  it("offers the hospital account when single sign-on is on", async () => {
    serveApi(() => json({ sso: true }));
    renderLogin();
    const link = await screen.findByRole("link", { name: "Inloggen met ziekenhuisaccount" });
    expect(link.getAttribute("href")).toBe("/api/auth/oidc/login");
    expect(screen.getByRole("button", { name: "Aanmelden" })).toBeTruthy();
  });

  it("offers only the password when single sign-on is off", async () => {
    const fetch = serveApi(() => json({ sso: false }));
    renderLogin();
    await waitFor(() => expect(fetch).toHaveBeenCalledWith("/api/auth/config", expect.anything()));
    expect(screen.getByRole("form", { name: "Aanmelden" })).toBeTruthy();
    expect(screen.queryByRole("link", { name: "Inloggen met ziekenhuisaccount" })).toBeNull();
  });

  it("still offers the password when the configuration cannot be read", async () => {
    const fetch = serveApi(() => json({ detail: "Er ging iets mis." }, 500));
    renderLogin();
    await waitFor(() => expect(fetch).toHaveBeenCalledWith("/api/auth/config", expect.anything()));
    expect(screen.getByLabelText("Wachtwoord")).toBeTruthy();
    expect(screen.queryByRole("link", { name: "Inloggen met ziekenhuisaccount" })).toBeNull();
  });
});
