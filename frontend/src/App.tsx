// Navigation by role: clinicians chat, admins manage documents and users' ingestion, evaluators measure retrieval.
// The API refuses the chat to an account without the clinician role and everything but its own session to an
// account without any role, so such an account gets only the pages its roles open (or a Dutch message).
import { NavLink, Navigate, Route, Routes } from "react-router-dom";
import { AdminPage } from "./admin/AdminPage";
import { LoginPage } from "./auth/LoginPage";
import { hasRole, useSession } from "./auth/session";
import { ChatPage } from "./chat/ChatPage";
import { EvaluatorPage } from "./evaluator/EvaluatorPage";

export const NO_ROLE =
  "Je account heeft nog geen rol in Vraagbaak: je kunt nog geen vragen stellen of documenten bekijken. Vraag de beheerder om je de rol te geven die je nodig hebt (clinician om vragen te stellen), en meld je daarna opnieuw aan.";

export function App() {
  const { user, loading, signOut } = useSession();
  if (loading) return <p className="loading">Laden…</p>;
  if (!user) return <LoginPage />;
  const clinician = hasRole(user, "clinician");
  const admin = hasRole(user, "admin");
  const evaluator = hasRole(user, "evaluator");
  const home = clinician ? null : admin ? "/beheer" : evaluator ? "/evaluatie" : null;
  return (
    <div className="app">
      <header className="topbar">
        <span className="brand">Vraagbaak</span>
        <nav aria-label="Hoofdmenu">
          {clinician && <NavLink to="/">Chat</NavLink>}
          {admin && <NavLink to="/beheer">Beheer</NavLink>}
          {evaluator && <NavLink to="/evaluatie">Evaluatie</NavLink>}
        </nav>
        <span className="who">{user.username}</span>
        <button type="button" onClick={() => void signOut()}>
          Afmelden
        </button>
      </header>
      {clinician || admin || evaluator ? (
        <Routes>
          <Route path="/" element={clinician ? <ChatPage /> : <Navigate to={home ?? "/"} />} />
          <Route path="/beheer" element={admin ? <AdminPage /> : <Navigate to="/" />} />
          <Route path="/evaluatie" element={evaluator ? <EvaluatorPage /> : <Navigate to="/" />} />
          <Route path="*" element={<Navigate to="/" />} />
        </Routes>
      ) : (
        <main className="no-role">
          <p role="alert">{NO_ROLE}</p>
        </main>
      )}
    </div>
  );
}
