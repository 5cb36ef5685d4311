import { useState, type FormEvent } from "react";
import { ApiError } from "../api/client";
import { useSession } from "./session";

export function LoginPage() {
  const { signIn } = useSession();
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

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
    </main>
  );
}
