// Who is signed in: loaded once from /api/auth/me, set by the login page, cleared by logout.
import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from "react";
import { ApiError, getJson, sendJson, setCsrfToken } from "../api/client";
import type { Role, Session, User } from "../api/types";

interface SessionState {
  user: User | null;
  loading: boolean;
  signIn: (username: string, password: string) => Promise<void>;
  signOut: () => Promise<void>;
}

const SessionContext = createContext<SessionState | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [user, setUser] = useState<User | null>(null);
  const [loading, setLoading] = useState(true);

  const adopt = useCallback((session: Session | null) => {
    setCsrfToken(session?.csrf_token ?? null);
    setUser(session?.user ?? null);
  }, []);

  useEffect(() => {
    getJson<Session>("/api/auth/me")
      .then(adopt)
      .catch((error: unknown) => {
        if (!(error instanceof ApiError && error.status === 401)) console.error(error);
        adopt(null);
      })
      .finally(() => setLoading(false));
  }, [adopt]);

  const signIn = useCallback(
    async (username: string, password: string) => adopt(await sendJson<Session>("POST", "/api/auth/login", { username, password })),
    [adopt],
  );
  const signOut = useCallback(async () => {
    await sendJson<void>("POST", "/api/auth/logout");
    adopt(null);
  }, [adopt]);

  return <SessionContext.Provider value={{ user, loading, signIn, signOut }}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error("useSession outside SessionProvider");
  return state;
}

export function hasRole(user: User | null, role: Role): boolean {
  return user?.roles.includes(role) ?? false;
}
