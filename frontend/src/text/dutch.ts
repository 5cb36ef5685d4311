// Dutch wording shared by the pages: counts with the right plural, dates and times, titles cut at a word.

/** "1 vraag", "3 vragen": the count with the singular or the plural. */
export function count(n: number, singular: string, plural: string): string {
  return `${n} ${n === 1 ? singular : plural}`;
}

/** The text cut at the last whole word within `max` characters, with "…" when something was left out. */
export function cutAtWord(text: string, max: number): string {
  const clean = text.replace(/\s+/g, " ").trim();
  if (clean.length <= max) return clean;
  const cut = clean.slice(0, max - 1);
  const lastSpace = cut.lastIndexOf(" ");
  return `${(lastSpace > max / 3 ? cut.slice(0, lastSpace) : cut).replace(/[\s,.;:–-]+$/, "")}…`;
}

const dayMs = 24 * 60 * 60 * 1000;

function startOfDay(moment: Date): number {
  return new Date(moment.getFullYear(), moment.getMonth(), moment.getDate()).getTime();
}

/** Which group of the history a moment falls in, seen from `now`: vandaag, gisteren, eerder deze week, … */
export function dayGroup(moment: Date, now: Date = new Date()): string {
  const days = Math.round((startOfDay(now) - startOfDay(moment)) / dayMs);
  if (days <= 0) return "Vandaag";
  if (days === 1) return "Gisteren";
  const weekday = (now.getDay() + 6) % 7; // Monday 0
  if (days <= weekday) return "Eerder deze week";
  if (days <= weekday + 7) return "Vorige week";
  if (moment.getFullYear() === now.getFullYear() && moment.getMonth() === now.getMonth()) return "Eerder deze maand";
  return moment.toLocaleDateString("nl-NL", { month: "long", year: "numeric" }).replace(/^./, (c) => c.toUpperCase());
}

/** "25 nov. 2026, 21:40:12": a moment for job and report lists (seconds matter for short jobs). */
export function dateTime(value: string, seconds = false): string {
  return new Date(value).toLocaleString("nl-NL", {
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    ...(seconds ? { second: "2-digit" } : {}),
  });
}

/** "12 s", "3 min 5 s": how long something took. */
export function duration(from: string, to: string): string {
  const total = Math.max(0, Math.round((new Date(to).getTime() - new Date(from).getTime()) / 1000));
  if (total < 60) return `${total} s`;
  const minutes = Math.floor(total / 60);
  return total % 60 ? `${minutes} min ${total % 60} s` : `${minutes} min`;
}
