// One place that talks to the web API: JSON in and out, the CSRF header on unsafe methods, Dutch errors.

let csrfToken: string | null = null;

export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** An API answer other than 2xx; `message` is the API's Dutch `detail` when it gave one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly retryAfter: number | null = null,
  ) {
    super(message);
  }
}

const UNSAFE = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** fetch with the session cookie and CSRF header; throws ApiError on a non-2xx answer. */
export async function request(path: string, init: RequestInit = {}): Promise<Response> {
  const method = (init.method ?? "GET").toUpperCase();
  const headers = new Headers(init.headers);
  if (UNSAFE.has(method) && csrfToken) headers.set("X-CSRF-Token", csrfToken);
  if (typeof init.body === "string") headers.set("Content-Type", "application/json");
  let response: Response;
  try {
    response = await fetch(path, { ...init, method, headers, credentials: "same-origin" });
  } catch {
    throw new ApiError(0, "Geen verbinding met de server. Controleer je netwerk en probeer opnieuw.");
  }
  if (!response.ok) throw await errorOf(response);
  return response;
}

export async function getJson<T>(path: string): Promise<T> {
  return (await request(path)).json() as Promise<T>;
}

export async function sendJson<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await request(path, { method, body: body === undefined ? undefined : JSON.stringify(body) });
  return (response.status === 204 ? undefined : await response.json()) as T;
}

export async function errorOf(response: Response): Promise<ApiError> {
  const retry = Number(response.headers.get("Retry-After"));
  let message = `Er ging iets mis (fout ${response.status}).`;
  try {
    const body = (await response.json()) as { detail?: unknown };
    if (typeof body.detail === "string") message = body.detail;
    else if (Array.isArray(body.detail)) message = "Ongeldige invoer: " + body.detail.map(fieldOf).join(", ");
  } catch {
    // not JSON: keep the generic message
  }
  return new ApiError(response.status, message, Number.isFinite(retry) && retry > 0 ? retry : null);
}

function fieldOf(error: { loc?: unknown[]; msg?: string }): string {
  return `${(error.loc ?? []).slice(1).join(".")}: ${error.msg ?? ""}`;
}
