import { useEffect, useState, type FormEvent } from "react";
import { ApiError, getJson } from "../api/client";
import type { AuthConfig } from "../api/types";
import { useSession } from "./session";

export function LoginPage() {
  const { signIn } = useSession();
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [sso, setSso] = useState(false);

  useEffect(() => {
    getJson<AuthConfig>("/api/auth/config")
      .then((config) => setSso(config.sso))
      .catch(() => setSso(false));
  }, []);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await signIn(username, password);
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : "Aanmelden mislukt.");
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="login">
      <h1>Vraagbaak</h1>
      <p>Medische procedures van het ziekenhuis, met bronvermelding.</p>
      <form onSubmit={submit} aria-label="Aanmelden">
        <label>
          Gebruikersnaam
          <input value={username} onChange={(e) => setUsername(e.target.value)} autoComplete="username" required />
        </label>
        <label>
          Wachtwoord
          <input type="password" value={password} onChange={(e) => setPassword(e.target.value)} autoComplete="current-password" required />
        </label>
        {error && <p role="alert" className="error">{error}</p>}
        <button type="submit" disabled={busy}>
          Aanmelden
        </button>
      </form>
      {sso && (
        <p className="sso">
          {/* A navigation, not a fetch: the hospital's sign-in page takes over and sends the browser back signed in. */}
          <a className="button" href="/api/auth/oidc/login">
            Inloggen met ziekenhuisaccount
          </a>
        </p>
      )}
    </main>
  );
}
