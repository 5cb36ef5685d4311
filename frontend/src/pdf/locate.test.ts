import { locateAcrossPages, locatePassage, longestCommonRun, normalise, runningItems, type Highlight } from "./locate";

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

/** The highlight of whole text items `indices` of `items`. */
function whole(items: readonly string[], indices: number[]): Highlight {
  return new Map(indices.map((index) => [index, [0, items[index].length]]));
}

/** The text each range of `highlight` marks in `items`. */
function marked(items: readonly string[], highlight: Highlight | undefined): string[] {
  return [...(highlight ?? [])].map(([item, [start, end]]) => items[item].slice(start, end));
}

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
    expect(location.items.get(19)).toEqual(new Map());
    expect(location.items.get(20)).toEqual(whole(pages.get(20) ?? [], [0, 1]));
  });

  it("highlights the passage on every page it spans and opens the page with most of it", () => {
    const across = "De aanvrager levert de gegevens aan binnen zes weken na de aanvraag. Het CIZ beslist binnen zes weken over de aanvraag en stuurt het besluit naar de verzekerde en het zorgkantoor.";
    const location = locateAcrossPages(pages, 19, 20, across);
    expect(location.items.get(19)).toEqual(whole(pages.get(19) ?? [], [0]));
    expect(location.items.get(20)).toEqual(whole(pages.get(20) ?? [], [0, 1]));
    expect(location.page).toBe(20);
  });

  it("falls back to the first page of the range when no page holds the passage", () => {
    expect(locateAcrossPages(pages, 19, 20, footer)).toEqual({ page: 19, items: new Map([[19, new Map()], [20, new Map()]]) });
  });
});

describe("locateAcrossPages with a sentence", () => {
  // A justified line of the text layer often holds the end of one sentence and the start of the next.
  const page = [
    "Procedure handhygiëne",
    "Handalcohol werkt niet tegen sporen van C. difficile. Wrijf de",
    "handen 20 tot 30 se-",
    "conden in tot ze droog zijn. Was daarna niet.",
  ];
  const passage = "Handalcohol werkt niet tegen sporen van C. difficile. Wrijf de handen 20 tot 30 seconden in tot ze droog zijn.";
  const onePage = (items: string[], sentence: string, text = passage) => locateAcrossPages(new Map([[1, items]]), 1, 1, text, sentence).items.get(1);

  it("marks exactly the sentence, to the character, across line breaks and hyphens", () => {
    const highlight = onePage(page, "Wrijf de handen 20 tot 30 seconden in tot ze droog zijn.");
    expect(marked(page, highlight)).toEqual(["Wrijf de", "handen 20 tot 30 se", "conden in tot ze droog zijn."]);
  });

  it("takes the place inside the passage when the sentence is also elsewhere on the page", () => {
    const twice = ["Droog de handen goed af.", "Intro van een andere procedure.", "Zeep gebruiken. Droog de handen goed af."];
    expect([...(onePage(twice, "Droog de handen goed af.", "Zeep gebruiken. Droog de handen goed af.") ?? [])]).toEqual([[2, [16, 40]]]);
  });

  it("highlights the sentence alone where it is found, else the passage's whole text items", () => {
    expect([...(onePage(page, "Handalcohol werkt niet tegen sporen van C. difficile.") ?? [])]).toEqual([[1, [0, 53]]]);
    expect(onePage(page, "Wrijf de handen 40 tot 60 seconden in.")).toEqual(whole(page, [1, 2, 3]));
    expect(onePage(page.slice(0, 3), "Wrijf de handen 20 tot 30 seconden in tot ze droog zijn.")).toEqual(whole(page, [1, 2]));
    expect(onePage(page, "Deze zin staat niet op de pagina.")).toEqual(locateAcrossPages(new Map([[1, page]]), 1, 1, passage).items.get(1));
  });

  it("marks a heading and its list items line by line when the text layer reads the list after the text beside it", () => {
    // pdf.js reads the real leaflet's bulleted list after the next heading and lead-in (a column of its own).
    const leaflet = ["Waar niet prikken", "", "Hoe u zichzelf injecteert", "Wij adviseren u:", "in de buurt van een wond of litteken;", "", "in het geopereerde been;"];
    const stored = "Waar niet prikken\n\nin de buurt van een wond of litteken;\n\nin het geopereerde been;\n\nHoe u zichzelf injecteert\nWij adviseren u:";
    const quote = "Waar niet prikken\n\nin de buurt van een wond of litteken;\n\nin het geopereerde been;";
    expect(marked(leaflet, onePage(leaflet, quote, stored))).toEqual(["Waar niet prikken", "in de buurt van een wond of litteken;", "in het geopereerde been;"]);
  });

  it("marks no line of a quote of several lines when one of them is not on the page", () => {
    const lines = ["Waar niet prikken", "in de buurt van een wond of litteken;", "Iets anders dat hier staat."];
    const quote = "Waar niet prikken\nin de buurt van een wond of litteken;\nin het geopereerde been;";
    expect(onePage(lines, quote, lines.join("\n"))).toEqual(whole(lines, [0, 1, 2]));
  });

  const across = "Wrijf de handen 20 tot 30 seconden in. Handalcohol heeft geen effect op sporen van C. difficile. Droog de handen goed af met een handdoek.";
  const twoPages = new Map<number, string[]>([
    [4, ["Hoofdstuk 5", "Wrijf de handen 20 tot 30 seconden in. Handalcohol heeft geen effect"]],
    [5, ["op sporen van C. difficile. Droog de handen goed af", "met een handdoek.", "6. Handen wassen"]],
  ]);

  it("opens the later page of a passage across a page break when its sentence is there, and marks nothing on the other", () => {
    const later = locateAcrossPages(twoPages, 4, 5, across, "Droog de handen goed af met een handdoek.");
    expect(later.page).toBe(5);
    expect(later.items.get(4)).toEqual(new Map());
    expect(marked(twoPages.get(5) ?? [], later.items.get(5))).toEqual(["Droog de handen goed af", "met een handdoek."]);
    expect(locateAcrossPages(twoPages, 4, 5, across, "Wrijf de handen 20 tot 30 seconden in.").page).toBe(4);
  });

  it("marks a sentence cut by the page break on both pages and opens the page with most of it", () => {
    const cut = locateAcrossPages(twoPages, 4, 5, across, "Handalcohol heeft geen effect op sporen van C. difficile.");
    expect(marked(twoPages.get(4) ?? [], cut.items.get(4))).toEqual(["Handalcohol heeft geen effect"]);
    expect(marked(twoPages.get(5) ?? [], cut.items.get(5))).toEqual(["op sporen van C. difficile."]);
    expect(cut.page).toBe(4);
  });

  it("marks a sentence across a page break over a running footer, never the footer", () => {
    const footer = "Handboek verpleging – protocol handhygiëne";
    const pages = new Map<number, string[]>([
      [3, ["Inleiding over hygiëne op de afdeling.", footer]],
      [4, ["Wrijf de handen 20 tot 30 seconden in. Handalcohol heeft", footer]],
      [5, ["geen effect op sporen van C. difficile.", footer]],
    ]);
    const cut = locateAcrossPages(pages, 4, 5, "Wrijf de handen 20 tot 30 seconden in. Handalcohol heeft geen effect op sporen van C. difficile.", "Handalcohol heeft geen effect op sporen van C. difficile.");
    expect([...(cut.items.get(4) ?? [])]).toEqual([[0, [39, 56]]]);
    expect(marked(pages.get(5) ?? [], cut.items.get(5))).toEqual(["geen effect op sporen van C. difficile."]);
    expect(cut.page).toBe(5);
  });

  it("marks a sentence across a page break over the page number and footer, not the page number", () => {
    const pages = new Map<number, string[]>([
      [7, ["12", "Wrijf de handen 20 tot 30 seconden in. Handalcohol heeft", "Handboek verpleging", "7"]],
      [8, ["Handboek verpleging", "geen effect op sporen van C. difficile.", "8"]],
    ]);
    const cut = locateAcrossPages(pages, 7, 8, "Wrijf de handen 20 tot 30 seconden in. Handalcohol heeft geen effect op sporen van C. difficile.", "Handalcohol heeft geen effect op sporen van C. difficile.");
    expect([...(cut.items.get(7) ?? [])]).toEqual([[1, [39, 56]]]);
    expect([...(cut.items.get(8) ?? [])]).toEqual([[1, [0, 39]]]);
  });

  it("falls back to the passage on every page it spans when no page holds the sentence", () => {
    const location = locateAcrossPages(twoPages, 4, 5, across, "Was de handen 40 tot 60 seconden.");
    expect(location).toEqual(locateAcrossPages(twoPages, 4, 5, across));
    expect(location.items.get(4)).toEqual(whole(twoPages.get(4) ?? [], [1]));
  });
});
