import { render, screen, within } from "@testing-library/react";
import type { Conversation } from "../api/types";
import { ConversationList, groupByDay } from "./ConversationList";

const at = (id: number, title: string, updated: Date) =>
  ({ id, title, created_at: updated.toISOString(), updated_at: updated.toISOString() }) as Conversation;

describe("ConversationList", () => {
  it("groups the history by day and cuts long titles at a word", () => {
    const now = new Date();
    const yesterday = new Date(now.getFullYear(), now.getMonth(), now.getDate() - 1, 12);
    const long = "Hoe lang mag een stuwband blijven zitten bij een bloedafname op de afdeling interne geneeskunde?";
    render(<ConversationList conversations={[at(1, long, now), at(2, "Handalcohol", yesterday)]} activeId={1} onSelect={vi.fn()} onNew={vi.fn()} />);
    const today = within(screen.getByRole("region", { name: "Vandaag" }));
    const button = today.getByRole("button");
    expect(button.textContent).toBe("Hoe lang mag een stuwband blijven zitten bij een…");
    expect(button.getAttribute("title")).toBe(long);
    expect(within(screen.getByRole("region", { name: "Gisteren" })).getByRole("button", { name: "Handalcohol" })).toBeTruthy();
  });

  it("keeps the API's order inside and between the groups", () => {
    const now = new Date(2026, 10, 26, 9);
    const groups = groupByDay([at(3, "c", new Date(2026, 10, 26, 8)), at(2, "b", new Date(2026, 10, 26, 7)), at(1, "a", new Date(2026, 9, 1))], now);
    expect(groups.map(([name, members]) => [name, members.map((c) => c.id)])).toEqual([["Vandaag", [3, 2]], ["Oktober 2026", [1]]]);
  });
});
