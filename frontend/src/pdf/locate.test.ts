import { locateHighlight, locatePassage, locateSentence, longestCommonRun, normalise, pageHoldingSentence } from "./locate";

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

describe("locateSentence and locateHighlight", () => {
  // A justified line of the text layer often holds the end of one sentence and the start of the next.
  const page = [
    "Procedure handhygiëne",
    "Handalcohol werkt niet tegen sporen van C. difficile. Wrijf de",
    "handen 20 tot 30 se-",
    "conden in tot ze droog zijn. Was daarna niet.",
  ];
  const passage = "Handalcohol werkt niet tegen sporen van C. difficile. Wrijf de handen 20 tot 30 seconden in tot ze droog zijn.";

  it("marks exactly the sentence, to the character, across line breaks and hyphens", () => {
    const highlight = locateSentence(page, "Wrijf de handen 20 tot 30 seconden in tot ze droog zijn.", passage);
    const marked = [...highlight].map(([item, [start, end]]) => page[item].slice(start, end));
    expect(marked).toEqual(["Wrijf de", "handen 20 tot 30 se", "conden in tot ze droog zijn."]);
  });

  it("finds nothing when the page does not hold the whole sentence", () => {
    expect(locateSentence(page, "Wrijf de handen 40 tot 60 seconden in.", passage).size).toBe(0);
    expect(locateSentence(page.slice(0, 3), "Wrijf de handen 20 tot 30 seconden in tot ze droog zijn.", passage).size).toBe(0);
  });

  it("takes the place inside the passage when the sentence is also elsewhere on the page", () => {
    const twice = ["Droog de handen goed af.", "Intro van een andere procedure.", "Zeep gebruiken. Droog de handen goed af."];
    const highlight = locateSentence(twice, "Droog de handen goed af.", "Zeep gebruiken. Droog de handen goed af.");
    expect([...highlight]).toEqual([[2, [16, 40]]]);
  });

  it("highlights the sentence alone where it is found, else the passage's whole text items", () => {
    expect([...locateHighlight(page, passage, "Handalcohol werkt niet tegen sporen van C. difficile.")]).toEqual([[1, [0, 53]]]);
    expect([...locateHighlight(page, passage, "Deze zin staat niet op de pagina.")]).toEqual([
      [1, [0, page[1].length]],
      [2, [0, page[2].length]],
      [3, [0, page[3].length]],
    ]);
    expect([...locateHighlight(page, passage)]).toEqual([...locateHighlight(page, passage, "Deze zin staat niet op de pagina.")]);
  });
});

describe("pageHoldingSentence", () => {
  const passage = "Wrijf de handen 20 tot 30 seconden in. Handalcohol heeft geen effect op sporen van C. difficile. Droog de handen goed af met een handdoek.";
  const pages: Record<number, string[]> = {
    4: ["Hoofdstuk 5", "Wrijf de handen 20 tot 30 seconden in. Handalcohol heeft geen effect"],
    5: ["op sporen van C. difficile. Droog de handen goed af", "met een handdoek.", "6. Handen wassen"],
  };
  const itemsOf = async (page: number) => pages[page];

  it("finds the later page of a passage across a page break when its sentence is there", async () => {
    expect(await pageHoldingSentence([4, 5], itemsOf, "Droog de handen goed af met een handdoek.", passage)).toBe(5);
    expect(await pageHoldingSentence([4, 5], itemsOf, "Wrijf de handen 20 tot 30 seconden in.", passage)).toBe(4);
  });

  it("finds no page for a sentence cut by the page break or not there at all", async () => {
    expect(await pageHoldingSentence([4, 5], itemsOf, "Handalcohol heeft geen effect op sporen van C. difficile.", passage)).toBeNull();
    expect(await pageHoldingSentence([4, 5], itemsOf, "Was de handen 40 tot 60 seconden.", passage)).toBeNull();
  });
});
