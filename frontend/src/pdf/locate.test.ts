import { locateAcrossPages, locatePassage, longestCommonRun, normalise, runningItems } from "./locate";

describe("normalise", () => {
  it("unfolds ligatures, drops hyphens, whitespace and punctuation, lower-cases", () => {
    expect(normalise("Desinfectie van de ﬁxatie-\nband, 30 sec.").chars).toBe("desinfectievandefixatieband30sec");
  });

  it("maps every kept character back to its position in the input", () => {
    const { chars, origin } = normalise("a b");
    expect(chars).toBe("ab");
    expect(origin).toEqual([0, 2]);
  });
});

describe("longestCommonRun", () => {
  it("finds the longest shared substring and where it starts in both", () => {
    expect(longestCommonRun("xxabcdyy", "zabcdz")).toEqual({ startA: 2, startB: 1, length: 4 });
  });
});

describe("locatePassage", () => {
  const page = [
    "Procedure handhygiëne",
    "Handen worden gedesin-",
    "fecteerd met alcohol gedurende",
    "30 seconden vóór elk patiënt-",
    "contact.",
    "Bijlage 2: contactgegevens",
  ];

  it("highlights the items of a passage despite line-end hyphens and other line breaks", () => {
    const passage = "Handen worden gedesinfecteerd met alcohol gedurende 30 seconden vóór elk patiëntcontact.";
    expect(locatePassage(page, passage)).toEqual([1, 2, 3, 4]);
  });

  it("highlights the part on this page of a passage that continues on the next page", () => {
    const passage = "Bijlage 2: contactgegevens van de dienst ziekenhuishygiëne en het infectiecomité van het ziekenhuis";
    expect(locatePassage(page, passage)).toEqual([5]);
  });

  it("finds nothing on a page that does not hold the passage", () => {
    expect(locatePassage(page, "De stuwband mag maximaal twee minuten blijven zitten bij een bloedafname.")).toEqual([]);
  });

  it("is tolerant of ligatures in the text layer", () => {
    expect(locatePassage(["De eﬃciëntie van de ﬁxatie wordt dagelijks gecontroleerd"], "De efficiëntie van de fixatie wordt dagelijks gecontroleerd")).toEqual([0]);
  });

  it("highlights the part on this page of a passage that started on the previous page", () => {
    const next = ["30 seconden vóór elk patiënt-", "contact.", "Bijlage 2: contactgegevens"];
    const passage = "Handen worden gedesinfecteerd met alcohol gedurende 30 seconden vóór elk patiëntcontact.";
    expect(locatePassage(next, passage)).toEqual([0, 1]);
  });

  it("ignores stray backslashes and symbol-font bullets that cleaning removed from the stored passage", () => {
    const items = ["\uf0b7 Controleer de \\pols", "slag van de patiënt elk uur."];
    expect(locatePassage(items, "Controleer de polsslag van de patiënt elk uur.")).toEqual([0, 1]);
  });

  it("finds nothing for an empty passage or an empty page", () => {
    expect(locatePassage(page, " \n ")).toEqual([]);
    expect(locatePassage([], "Handen worden gedesinfecteerd")).toEqual([]);
  });

  it("does not take a few shared common words for the passage", () => {
    expect(locatePassage(page, "Het patiëntcontact wordt beschreven in een andere procedure over isolatie.")).toEqual([]);
  });
});

describe("locateAcrossPages", () => {
  const footer = "CIZ | Beleidsregels indicatiestelling Wlz 2025";
  const pages = new Map<number, string[]>([
    [18, ["Hoofdstuk 4 gaat over de toegang tot de zorg.", footer, "18"]],
    [19, ["De aanvrager levert de gegevens aan binnen zes weken na de aanvraag.", footer, "19"]],
    [20, ["Het CIZ beslist binnen zes weken over de aanvraag en stuurt het besluit", "naar de verzekerde en het zorgkantoor.", footer, "20"]],
    [21, ["Bezwaar maken kan binnen zes weken na het besluit.", footer, "21"]],
  ]);
  // The stored chunk begins with the footer of p. 19 (ingestion kept it) and goes on with the text of p. 20.
  const passage = `${footer} Het CIZ beslist binnen zes weken over de aanvraag en stuurt het besluit naar de verzekerde en het zorgkantoor.`;

  it("tells a running footer by its repetition on other pages, page numbers aside", () => {
    expect(runningItems(pages).get(19)).toEqual(new Set([1]));
    expect(runningItems(new Map([[1, ["Pagina 1 van 2 – Protocol"]], [2, ["Pagina 2 van 2 – Protocol"]]])).get(2)).toEqual(new Set([0]));
  });

  it("opens the page holding the passage, not the one where only the running footer matches", () => {
    const location = locateAcrossPages(pages, 19, 20, passage);
    expect(location.page).toBe(20);
    expect(location.items.get(19)).toEqual([]);
    expect(location.items.get(20)).toEqual([0, 1]);
  });

  it("highlights the passage on every page it spans and opens the page with most of it", () => {
    const across = "De aanvrager levert de gegevens aan binnen zes weken na de aanvraag. Het CIZ beslist binnen zes weken over de aanvraag en stuurt het besluit naar de verzekerde en het zorgkantoor.";
    const location = locateAcrossPages(pages, 19, 20, across);
    expect(location.items.get(19)).toEqual([0]);
    expect(location.items.get(20)).toEqual([0, 1]);
    expect(location.page).toBe(20);
  });

  it("falls back to the first page of the range when no page holds the passage", () => {
    expect(locateAcrossPages(pages, 19, 20, footer)).toEqual({ page: 19, items: new Map([[19, []], [20, []]]) });
  });
});
