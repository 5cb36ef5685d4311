import { render, screen } from "@testing-library/react";
import { ChatPage } from "./ChatPage";

afterEach(() => vi.unstubAllGlobals());

describe("ChatPage focus", () => {
  it("puts the focus in the question box when the page opens (after sign-in), so typing can start at once", async () => {
    vi.stubGlobal("fetch", vi.fn(async () => new Response("[]", { headers: { "Content-Type": "application/json" } })));
    render(<ChatPage />);
    const box = screen.getByRole("textbox", { name: "Jouw vraag" });
    expect(document.activeElement).toBe(box);
  });
});
