"""The quantities a Dutch sentence states: each number (in digits or in words) with the unit written after it.

"binnen zes weken" and "binnen 2 weken" state (6, week) and (2, week); "30 µg" and "30 mg" state the same number
in other units; "1 x per week" and "1x per jaar" the same count per another period. Units of one dimension
compare by value ("2 dagen" = "48 uur", "0,5 g" = "500 mg", "1 x per week" ≠ "1 x per jaar"). The support check
compares these: an answer sentence must state no quantity its source does not, and a sentence stating another
value of a dimension the quote states contradicts the quote. "een" is left out (mostly the article).
"""

import re
from dataclasses import dataclass

NUMBER_WORDS = {
    "één": "1", "twee": "2", "drie": "3", "vier": "4", "vijf": "5", "zes": "6", "zeven": "7", "acht": "8",
    "negen": "9", "tien": "10", "elf": "11", "twaalf": "12", "dertien": "13", "veertien": "14", "vijftien": "15",
    "zestien": "16", "zeventien": "17", "achttien": "18", "negentien": "19", "twintig": "20", "dertig": "30",
    "veertig": "40", "vijftig": "50", "zestig": "60", "zeventig": "70", "tachtig": "80", "negentig": "90",
    "honderd": "100", "duizend": "1000", "anderhalf": "1.5", "anderhalve": "1.5",
}  # fmt: skip
# Unit spellings → one name; "per week" after a count is read as the unit "keer per week".
UNITS = {
    "mg": "mg", "milligram": "mg", "µg": "µg", "μg": "µg", "mcg": "µg", "microgram": "µg", "ug": "µg",
    "g": "g", "gram": "g", "kg": "kg", "kilo": "kg", "ml": "ml", "milliliter": "ml", "cc": "ml", "l": "l",
    "liter": "l", "%": "%", "procent": "%", "percent": "%", "u": "uur", "uur": "uur", "uren": "uur", "h": "uur",
    "min": "min", "minuut": "min", "minuten": "min", "sec": "s", "s": "s", "seconde": "s", "seconden": "s",
    "dag": "dag", "dagen": "dag", "week": "week", "weken": "week", "maand": "maand", "maanden": "maand",
    "jaar": "jaar", "jaren": "jaar", "keer": "keer", "maal": "keer", "x": "keer", "m": "m", "meter": "m",
    "cm": "cm", "mm": "mm", "ie": "IE", "eenheden": "IE", "eenheid": "IE", "e": "IE", "glas": "glas",
    "glazen": "glas", "tablet": "tablet", "tabletten": "tablet", "tabl": "tablet", "druppel": "druppel",
    "druppels": "druppel", "puf": "puf", "pufje": "puf", "pufjes": "puf", "pufs": "puf", "stuks": "stuk",
    "stuk": "stuk", "mmol": "mmol", "kcal": "kcal",
}  # fmt: skip
PERIODS = {"dag": "dag", "week": "week", "maand": "maand", "jaar": "jaar", "uur": "uur", "nacht": "nacht"}
# Units of one dimension and their size in its base unit (mg, ml, hours, cm): compared by value.
SIZES = {
    "µg": ("massa", 0.001), "mg": ("massa", 1.0), "g": ("massa", 1000.0), "kg": ("massa", 1e6),
    "ml": ("volume", 1.0), "l": ("volume", 1000.0),
    "s": ("duur", 1 / 3600), "min": ("duur", 1 / 60), "uur": ("duur", 1.0), "dag": ("duur", 24.0),
    "nacht": ("duur", 24.0), "week": ("duur", 168.0), "maand": ("duur", 730.0), "jaar": ("duur", 8760.0),
    "mm": ("lengte", 0.1), "cm": ("lengte", 1.0), "m": ("lengte", 100.0),
}  # fmt: skip
_NUMBER = r"\d+(?:[.,]\d+)?"
_WORDS = "|".join(sorted(NUMBER_WORDS, key=len, reverse=True))
_QUANTITY = re.compile(
    rf"(?<![\w,.])(?P<number>{_NUMBER}|(?:{_WORDS})(?![\w]))\s*(?P<unit>%|[µμ]g|[a-zA-Zé]+)?"
    rf"(?:\s+per\s+(?P<period>[a-z]+))?",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Quantity:
    """A number (normalised: decimal point, no leading or trailing zeros) and its unit (None: none written); a unit
    "X per P" is a count of X per period P."""

    number: str
    unit: str | None

    @property
    def measure(self) -> tuple[str, float] | None:
        """Its dimension and its value in the dimension's base unit (a rate: per hour); None without a unit."""
        if self.unit is None:
            return None
        count, _, period = self.unit.partition("per ")
        count = count.strip()
        dimension, size = SIZES.get(count, (count, 1.0))
        value = float(self.number) * size
        if period:
            _, hours = SIZES.get(period, (period, 1.0))
            return f"{dimension} per", value / hours
        return dimension, value


def quantities(text: str) -> frozenset[Quantity]:
    """Every number the text states, in digits or in words, with the unit written right after it."""
    found = set()
    for match in _QUANTITY.finditer(text):
        number = _normalised(NUMBER_WORDS.get(match["number"].lower(), match["number"]))
        unit = UNITS.get((match["unit"] or "").lower())
        period = PERIODS.get((match["period"] or "").lower().removesuffix("en"))
        if unit is not None and period is not None:
            unit = f"{unit} per {period}"
        elif unit is None and period is not None:
            unit = f"per {period}"
        found.add(Quantity(number, unit))
    return frozenset(found)


def unstated(claim: frozenset[Quantity], source: frozenset[Quantity]) -> frozenset[Quantity]:
    """The claim's quantities the source does not state: the same value in the same dimension, or the same number
    where one of the two writes no unit (a table cell often gives the number alone)."""
    return frozenset(q for q in claim if not any(_agrees(q, s) for s in source))


def contradicted(claim: frozenset[Quantity], source: frozenset[Quantity]) -> frozenset[Quantity]:
    """The claim's quantities of a dimension the source states with other values only ("zes weken" against "twee
    weken", "1 x per jaar" against "1 x per week")."""
    contradicted = set()
    for claimed in claim:
        measure = claimed.measure
        if measure is None:
            continue
        values = [m[1] for s in source if (m := s.measure) is not None and m[0] == measure[0]]
        if values and not any(_same(value, measure[1]) for value in values):
            contradicted.add(claimed)
    return frozenset(contradicted)


def _agrees(claimed: Quantity, stated: Quantity) -> bool:
    if claimed.unit is None or stated.unit is None:
        return claimed.number == stated.number
    mine, theirs = claimed.measure, stated.measure
    return mine is not None and theirs is not None and mine[0] == theirs[0] and _same(mine[1], theirs[1])


def _same(one: float, other: float) -> bool:
    return abs(one - other) <= 1e-9 * max(abs(one), abs(other), 1.0)


def _normalised(number: str) -> str:
    value = number.replace(",", ".")
    if "." in value:
        value = value.rstrip("0").rstrip(".")
    return value.lstrip("0") or "0" if "." not in value else value
