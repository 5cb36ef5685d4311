import { locatePassage, longestCommonRun, normalise } from "./locate";

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
