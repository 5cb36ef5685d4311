import { count, cutAtWord, dayGroup, duration } from "./dutch";

describe("Dutch wording", () => {
  it("uses the singular for one and the plural otherwise", () => {
    expect(count(1, "vraag", "vragen")).toBe("1 vraag");
    expect(count(0, "vraag", "vragen")).toBe("0 vragen");
    expect(count(2, "onbekend document", "onbekende documenten")).toBe("2 onbekende documenten");
  });

  it("cuts a long title at a word and leaves a short one alone", () => {
    expect(cutAtWord("Hoe lang mag een stuwband blijven zitten bij een bloedafname?", 30)).toBe("Hoe lang mag een stuwband…");
    expect(cutAtWord("  max tijd\nstuwband? ", 30)).toBe("max tijd stuwband?");
  });

  it("groups dates as vandaag, gisteren, eerder deze week, vorige week and by month", () => {
    const now = new Date(2026, 10, 26, 9, 0); // Thursday 26 November 2026
    expect(dayGroup(new Date(2026, 10, 26, 0, 5), now)).toBe("Vandaag");
    expect(dayGroup(new Date(2026, 10, 25, 23, 59), now)).toBe("Gisteren");
    expect(dayGroup(new Date(2026, 10, 23, 8, 0), now)).toBe("Eerder deze week");
    expect(dayGroup(new Date(2026, 10, 17, 8, 0), now)).toBe("Vorige week");
    expect(dayGroup(new Date(2026, 10, 3, 8, 0), now)).toBe("Eerder deze maand");
    expect(dayGroup(new Date(2026, 8, 3, 8, 0), now)).toBe("September 2026");
  });

  it("says how long a job took", () => {
    expect(duration("2026-11-25T21:40:00Z", "2026-11-25T21:40:18Z")).toBe("18 s");
    expect(duration("2026-11-25T21:40:00Z", "2026-11-25T21:43:05Z")).toBe("3 min 5 s");
  });
});
