// Navigation by role: clinicians chat, admins manage documents and users' ingestion, evaluators measure retrieval.
import { NavLink, Navigate, Route, Routes } from "react-router-dom";
import { AdminPage } from "./admin/AdminPage";
import { LoginPage } from "./auth/LoginPage";
import { hasRole, useSession } from "./auth/session";
import { ChatPage } from "./chat/ChatPage";
import { EvaluatorPage } from "./evaluator/EvaluatorPage";

export function App() {
  const { user, loading, signOut } = useSession();
  if (loading) return <p className="loading">Laden…</p>;
  if (!user) return <LoginPage />;
  const admin = hasRole(user, "admin");
  const evaluator = hasRole(user, "evaluator");
  return (
    <div className="app">
      <header className="topbar">
        <span className="brand">Vraagbaak</span>
        <nav aria-label="Hoofdmenu">
          <NavLink to="/">Chat</NavLink>
          {admin && <NavLink to="/beheer">Beheer</NavLink>}
          {evaluator && <NavLink to="/evaluatie">Evaluatie</NavLink>}
        </nav>
        <span className="who">{user.username}</span>
        <button type="button" onClick={() => void signOut()}>
          Afmelden
        </button>
      </header>
      <Routes>
        <Route path="/" element={<ChatPage />} />
        <Route path="/beheer" element={admin ? <AdminPage /> : <Navigate to="/" />} />
        <Route path="/evaluatie" element={evaluator ? <EvaluatorPage /> : <Navigate to="/" />} />
        <Route path="*" element={<Navigate to="/" />} />
      </Routes>
    </div>
  );
}
