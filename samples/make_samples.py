"""Generate the fictional sample hospital documents that ship with Vraagbaak.

Writes into ``samples/``:

* ``documents/<name>.pdf``        five small Dutch clinical procedures of the fictional hospital "UZ Voorbeeld"
* ``documents/<name>.meta.json``  sidecar metadata ({"audience": [...], "department": [...]})
* ``questions.csv``               evaluation questions (``question,relevant_documents``)
* ``facts.json``                  exact sentences and the page they are on, for tests
* ``README.md``                   description and the same facts as a table

Everything is deterministic (reportlab ``invariant=1``): running the script again gives identical bytes.
After writing, the PDFs are read back with pypdf and checked (facts on the right page, answers present,
running header/footer on every page, a hyphenated line end, diacritics, size).

Run: ``.venv/bin/python samples/make_samples.py``
"""

from __future__ import annotations

import csv
import io
import json
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape

import reportlab
from pypdf import PdfReader
from reportlab.lib import colors
from reportlab.lib.enums import TA_JUSTIFY
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import cm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import (
    BaseDocTemplate,
    Flowable,
    Frame,
    ListFlowable,
    ListItem,
    PageBreak,
    PageTemplate,
    Paragraph,
    Spacer,
    Table,
    TableStyle,
)

HERE = Path(__file__).resolve().parent
DOC_DIR = HERE / "documents"
HOSPITAL = "UZ Voorbeeld"
FICTION = "Voorbeelddocument – fictief, niet voor klinisch gebruik"
MAX_BYTES = 60_000
PAGE_W, PAGE_H = A4
MARGIN = 2 * cm

# Bitstream Vera ships with reportlab and has the U+FB02 "ﬂ" ligature glyph (Helvetica has none). It is used
# for exactly one real ligature in handhygiene.pdf, written as {fl} in the text below.
pdfmetrics.registerFont(TTFont("Vera", str(Path(reportlab.__file__).parent / "fonts" / "Vera.ttf")))
LIGATURE_MARKUP = '<font name="Vera">\ufb02</font>'


# --------------------------------------------------------------------------------------------------------------
# Document model
# --------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Heading:
    text: str


@dataclass(frozen=True)
class Para:
    text: str


@dataclass(frozen=True)
class Bullets:
    items: tuple[str, ...]


@dataclass(frozen=True)
class Steps:
    items: tuple[str, ...]


@dataclass(frozen=True)
class ValueTable:
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    widths: tuple[float, ...]  # fractions of the text width


@dataclass(frozen=True)
class NewPage:
    pass


Block = Heading | Para | Bullets | Steps | ValueTable | NewPage


@dataclass(frozen=True)
class Fact:
    page: int  # 1-based
    sentence: str
    summary: str  # short description for the README table


@dataclass(frozen=True)
class SampleDoc:
    name: str  # file stem
    code: str
    title: str
    audience: tuple[str, ...]
    department: tuple[str, ...]
    scope: str  # "Doelgroep: ..." line on page 1
    blocks: tuple[Block, ...]
    facts: tuple[Fact, ...]
    version: str = "Versie 3.0 – goedgekeurd op 15-01-2024 – herziening uiterlijk 15-01-2027"


@dataclass(frozen=True)
class Question:
    text: str
    # document file name -> a snippet of the answer that must appear in that document's text
    evidence: dict[str, str] = field(default_factory=dict)


# --------------------------------------------------------------------------------------------------------------
# Content (fictional, but medically sensible)
# --------------------------------------------------------------------------------------------------------------
HANDHYGIENE = SampleDoc(
    name="handhygiene",
    code="UZV-INF-001",
    title="Handhygiëne en handalcohol",
    audience=("alle",),
    department=("infectiepreventie",),
    scope="Doelgroep: alle zorgverleners en alle patiënten (kinderen en volwassenen). "
    "Dienst: infectiepreventie.",
    blocks=(
        Heading("1. Doel"),
        Para(
            "Deze procedure beschrijft wanneer en hoe zorgverleners in UZ Voorbeeld hun handen ontsmetten of "
            "wassen. Handhygiëne is de belangrijkste maatregel om de overdracht van micro-organismen te "
            "voorkomen, ook van multiresistente kiemen zoals MRSA en CPE. De procedure volgt de richtlijn "
            "van de WHO en de aanbevelingen van het team ziekenhuishygiëne."
        ),
        Heading("2. Toepassingsgebied"),
        Para(
            "De procedure geldt voor alle medewerkers met patiëntcontact: artsen, verpleegkundigen, "
            "paramedici, studenten, vrijwilligers en logistieke medewerkers. Bezoekers worden gevraagd hun "
            "handen te ontsmetten bij het betreden en het verlaten van de kamer. Een medewerker die de "
            "richtlijnen niet kent, wordt door de hoofdverpleegkundige doorverwezen naar de "
            "infectiepreventieverpleegkundige voor een korte opleiding op de verpleegeenheid."
        ),
        Heading("3. Basisvoorwaarden"),
        Bullets(
            (
                "Draag geen ringen, armbanden of polshorloge tijdens de zorg.",
                "Nagels zijn kort en schoon; geen nagellak, gelnagels of kunstnagels.",
                "Onderarmen zijn ontbloot: korte mouwen of mouwen opgestroopt tot boven de ellebogen.",
                "Dek wondjes en kloofjes aan de handen af met een waterafstotende pleister.",
            )
        ),
        Heading("4. De 5 momenten voor handhygiëne"),
        Para("Ontsmet de handen met handalcohol op de volgende vijf momenten:"),
        Steps(
            (
                "Vóór contact met de patiënt.",
                "Vóór een schone of aseptische handeling, bv. het aanprikken van een poortkatheter of het "
                "manipuleren van een i.v.-lijn.",
                "Na (mogelijk) contact met lichaamsvochten, ook na het uittrekken van handschoenen.",
                "Na contact met de patiënt.",
                "Na contact met de directe omgeving van de patiënt (bed, monitor, infuuspomp), ook als de "
                "patiënt zelf niet werd aangeraakt.",
            )
        ),
        NewPage(),
        Heading("5. Handalcohol: werkwijze"),
        Para(
            "Handalcohol is de eerste keuze voor handhygiëne, tenzij de handen zichtbaar vuil zijn. Gebruik "
            "uitsluitend de handalcohol die officieel door het ziekenhuis is goedgekeurd (ethanol 70–80% v/v "
            "met huidverzorgende middelen). De dispensers hangen bij de ingang van elke patiëntenkamer."
        ),
        Steps(
            (
                "Neem een handvol handalcohol (ongeveer 3 ml, twee pompslagen) in de holle, droge hand.",
                "Verdeel de handalcohol over handpalmen, handruggen, vingers, duimen, vingertoppen en polsen.",
                "Wrijf de handen 20 tot 30 seconden in tot ze volledig droog zijn.",
                "Raak pas daarna de patiënt of het steriele materiaal aan.",
            )
        ),
        Para(
            "Wrijf altijd tot de handen droog zijn: natte handalcohol werkt minder goed en irriteert de huid. "
            "Handalcohol heeft geen effect op sporen van Clostridioides difficile."
        ),
        Heading("6. Handen wassen met water en zeep"),
        Para("Was de handen met water en vloeibare zeep in plaats van ze te ontsmetten:"),
        Bullets(
            (
                "als de handen zichtbaar vuil of nat zijn;",
                "na contact met een patiënt met (vermoeden van) C. difficile of norovirus;",
                "na toiletbezoek.",
            )
        ),
        Para(
            "Handen wassen duurt 40 tot 60 seconden. Droog de handen goed af met een papieren handdoek en "
            "sluit de kraan met de handdoek als er geen elleboogkraan is."
        ),
        Heading("7. Overzicht: middel en duur"),
        ValueTable(
            header=("Situatie", "Middel", "Duur"),
            rows=(
                ("Standaard handhygiëne (5 momenten)", "Handalcohol, ca. 3 ml", "20–30 seconden"),
                ("Zichtbaar vuile handen", "Water en vloeibare zeep", "40–60 seconden"),
                ("C. difficile of norovirus", "Water en vloeibare zeep", "40–60 seconden"),
                ("Chirurgische handdesinfectie", "Chirurgische handalcohol", "1,5–3 minuten (fabrikant)"),
            ),
            widths=(0.42, 0.30, 0.28),
        ),
        NewPage(),
        Heading("8. Handschoenen"),
        Para(
            "Handschoenen vervangen handhygiëne niet. Draag niet-steriele handschoenen alleen bij verwacht "
            "contact met bloed, lichaamsvochten, slijmvliezen of niet-intacte huid. Ontsmet de handen vóór "
            "het aantrekken en na het uittrekken van de handschoenen. Ontsmet handschoenen nooit met "
            "handalcohol en gebruik één paar handschoenen voor één handeling bij één patiënt."
        ),
        Heading("9. Huidverzorging"),
        Para(
            "Handalcohol met huidverzorgende middelen beschadigt de huid minder dan vaak wassen met water en "
            "zeep. Gebruik handcrème in de pauzes en op het einde van de dienst. Meld aanhoudende roodheid, "
            "kloven of jeuk aan de arbeidsgeneesheer; een beschadigde huid is moeilijker te ontsmetten."
        ),
        Heading("10. Opvolging"),
        Para(
            "Het team ziekenhuishygiëne observeert elk kwartaal de naleving van de 5 momenten op alle "
            "verpleegeenheden. De streefwaarde voor de naleving is minstens 80%. De resultaten worden "
            "besproken met de hoofdverpleegkundige en het infectiepreventiecomité. A{fl}eiding tijdens drukke "
            "momenten (alarmen, telefoons, bellen) is de belangrijkste oorzaak van gemiste momenten; een "
            "geïnformeerd team plant daarom de zorg zo dat handhygiëne niet wordt overgeslagen."
        ),
        Heading("11. Afkortingen"),
        Bullets(
            (
                "CPE: carbapenemase-producerende Enterobacterales",
                "i.v.: intraveneus",
                "MRSA: meticillineresistente Staphylococcus aureus",
                "WHO: Wereldgezondheidsorganisatie",
            )
        ),
    ),
    facts=(
        Fact(1, "Draag geen ringen, armbanden of polshorloge tijdens de zorg.", "geen ringen of horloge"),
        Fact(2, "Wrijf de handen 20 tot 30 seconden in tot ze volledig droog zijn.", "handalcohol 20–30 s"),
        Fact(3, "Handschoenen vervangen handhygiëne niet.", "handschoenen ≠ handhygiëne"),
    ),
)

INSULINEPOMP_KINDEREN = SampleDoc(
    name="insulinepomp-kinderen",
    code="UZV-KIN-014",
    title="Insulinepomp bij kinderen met diabetes type 1",
    audience=("kinderen",),
    department=("kindergeneeskunde",),
    scope="Doelgroep: gehospitaliseerde kinderen en adolescenten (0–18 jaar) met diabetes type 1. "
    "Dienst: kindergeneeskunde.",
    blocks=(
        Heading("1. Doel en toepassingsgebied"),
        Para(
            "Deze procedure beschrijft de zorg voor gehospitaliseerde kinderen met diabetes type 1 die een "
            "insulinepomp gebruiken (CSII: continue subcutane insuline-infusie), al dan niet gekoppeld aan "
            "een glucosesensor (CGM). Voor volwassenen geldt de procedure Subcutane insulinetoediening bij "
            "volwassenen (UZV-VPL-022). De procedure is opgesteld door het diabetesteam kindergeneeskunde en "
            "officieel goedgekeurd door het medisch-farmaceutisch comité."
        ),
        Heading("2. Algemene afspraken"),
        Bullets(
            (
                "Het kind en de ouders blijven zoveel mogelijk zelf verantwoordelijk voor de pomp; de "
                "verpleegkundige controleert en registreert.",
                "De pomp bevat uitsluitend snelwerkende insuline (bv. insuline aspart of lispro). Er is dus "
                "geen langwerkende insuline in het lichaam.",
                "Noteer bij opname de basaalstanden, de koolhydraatratio en de correctiefactor in het EPD.",
                "Meet de glycemie vóór elke maaltijd, om 22 uur en om 3 uur 's nachts, of volg de "
                "CGM-waarden.",
                "Streefwaarde glycemie: 70–180 mg/dL (3,9–10,0 mmol/L).",
            )
        ),
        Heading("3. Infusieset en prikplaatsen"),
        Para(
            "Vervang de infusieset elke 2 tot 3 dagen. Vervang de set onmiddellijk bij roodheid, pijn, "
            "lekkage, bloed in de slang of een onverklaarde hoge glycemie. Vervang het reservoir samen met "
            "de infusieset. Kies een prikplaats met voldoende onderhuids vet en wissel telkens van plaats:"
        ),
        Bullets(
            (
                "buik, minstens 5 cm van de navel;",
                "bil (voorkeur bij jonge kinderen);",
                "voor- of zijkant van het bovenbeen;",
                "achterkant van de bovenarm (alleen bij oudere kinderen).",
            )
        ),
        NewPage(),
        Heading("4. Een nieuwe infusieset inbrengen"),
        Steps(
            (
                "Leg klaar: infusieset, reservoir, insuline op kamertemperatuur, inbrenghulp, alcoholdoekje.",
                "Breng eventueel 60 minuten vooraf een verdovende crème (lidocaïne/prilocaïne) aan.",
                "Voer handhygiëne uit, ontsmet de huid en laat ze drogen.",
                "Vul het reservoir en ontlucht de slang: er mogen geen luchtbellen in zitten.",
                "Breng de canule in met de inbrenghulp; zorg voor afleiding, bv. met een filmpje.",
                "Vul de canule volgens de instructies van de fabrikant.",
                "Meet de glycemie 2 uur na het vervangen van de set.",
            )
        ),
        Para("Vervang de set bij voorkeur overdag en niet vlak voor het slapengaan."),
        Heading("5. Hoge glycemie en ketonen"),
        Para("Meet bij een glycemie boven 250 mg/dL altijd de ketonen in het bloed."),
        Para(
            "Een pomp die niet goed werkt, geeft binnen enkele uren een tekort aan insuline. Omdat er geen "
            "langwerkende insuline is, kan het kind snel een diabetische ketoacidose (DKA) ontwikkelen. Bij "
            "twijfel over de pompwerking geef je de correctie altijd met een insulinepen en niet via de pomp. "
            "Bij braken, buikpijn of snelle ademhaling verwittig je de kinderarts, ongeacht de ketonenwaarde."
        ),
        ValueTable(
            header=("Bloedketonen", "Betekenis", "Actie"),
            rows=(
                ("< 0,6 mmol/L", "Normaal", "Correctiebolus via de pomp; glycemie na 1 uur opnieuw meten"),
                (
                    "0,6–1,4 mmol/L",
                    "Licht verhoogd",
                    "Correctie met insulinepen, infusieset vervangen, extra water drinken, na 1 uur "
                    "opnieuw meten",
                ),
                (
                    "1,5–2,9 mmol/L",
                    "Risico op DKA",
                    "Zoals hierboven en onmiddellijk de kinderarts verwittigen",
                ),
                (
                    "3,0 mmol/L of meer",
                    "Dreigende DKA",
                    "Spoedoverleg met de kinderarts: bloedgas, i.v. toegang, DKA-protocol",
                ),
            ),
            widths=(0.22, 0.22, 0.56),
        ),
        NewPage(),
        Heading("6. Lage glycemie (hypoglycemie)"),
        Para("Bij kinderen spreken we van hypoglycemie bij een glycemie lager dan 70 mg/dL (3,9 mmol/L)."),
        Steps(
            (
                "Geef 0,3 g snelle suikers per kg lichaamsgewicht, bv. druivensuiker of limonade.",
                "Meet de glycemie opnieuw na 15 minuten.",
                "Herhaal stap 1 zolang de glycemie lager is dan 70 mg/dL.",
                "Geef daarna een kleine koolhydraatrijke snack als de maaltijd nog meer dan 1 uur duurt.",
            )
        ),
        Para(
            "Bij bewustzijnsdaling of krampen: stop de pomp of koppel hem los, leg het kind in stabiele "
            "zijligging en geef glucagon: 0,5 mg i.m. bij een gewicht onder 25 kg, 1 mg i.m. vanaf 25 kg, "
            "of 3 mg nasaal vanaf 4 jaar. Met een i.v. toegang geef je 2 ml/kg glucose 10% i.v. Verwittig "
            "altijd de kinderarts en controleer pols, ademhaling en SpO2."
        ),
        Heading("7. De pomp loskoppelen"),
        Bullets(
            (
                "Loskoppelen zonder vervanging van insuline mag maximaal 1 uur.",
                "Koppel pomp en sensor los vóór een MRI; volg bij CT en röntgenonderzoek de instructies van "
                "de fabrikant.",
                "Bij een ingreep of bij braken overlegt de kinderarts over een i.v. insuline-infuus met "
                "NaCl 0,9% en glucose volgens het perioperatieve protocol.",
            )
        ),
        Heading("8. Ontslag en educatie"),
        Para(
            "Het multidisciplinaire diabetesteam (kinderarts, diabetesverpleegkundige, diëtist, psycholoog en "
            "sociaal werker) geeft educatie aan het kind, de ouders en indien nodig de school. De ouders "
            "worden geïnformeerd over het noodnummer van de dienst kindergeneeskunde en krijgen een "
            "schriftelijk noodplan mee voor een pompstoring."
        ),
    ),
    facts=(
        Fact(1, "Vervang de infusieset elke 2 tot 3 dagen.", "infusieset elke 2–3 dagen"),
        Fact(
            2, "Meet bij een glycemie boven 250 mg/dL altijd de ketonen in het bloed.", "ketonen > 250 mg/dL"
        ),
        Fact(3, "Loskoppelen zonder vervanging van insuline mag maximaal 1 uur.", "pomp max 1 uur los"),
    ),
)

INSULINE_VOLWASSENEN = SampleDoc(
    name="insuline-volwassenen",
    code="UZV-VPL-022",
    title="Subcutane insulinetoediening bij volwassenen",
    audience=("volwassenen",),
    department=("verpleging", "endocrinologie"),
    scope="Doelgroep: volwassen patiënten (18 jaar en ouder). Dienst: verpleging en endocrinologie.",
    blocks=(
        Heading("1. Doel en toepassingsgebied"),
        Para(
            "Deze procedure beschrijft de veilige subcutane (s.c.) toediening van insuline met een pen op de "
            "verpleegeenheden voor volwassenen. Voor kinderen met een insulinepomp geldt procedure UZV-KIN-014. Intraveneuze insuline (bv. 50 eenheden snelwerkende insuline in "
            "50 ml NaCl 0,9%, dus 1 eenheid/ml) valt buiten deze procedure."
        ),
        Heading("2. Insuline is hoogrisicomedicatie"),
        Bullets(
            (
                "Schrijf het woord eenheden altijd voluit; de afkorting E of IE wordt soms als cijfer gelezen.",
                "Laat de dosis bij twijfel dubbel controleren door een tweede verpleegkundige.",
                "Trek nooit insuline uit een pen op met een insulinespuit.",
                "Een insulinepen is strikt persoonsgebonden, ook na het wisselen van de naald.",
            )
        ),
        Heading("3. Soorten insuline"),
        ValueTable(
            header=("Type", "Voorbeelden", "Begin", "Piek", "Werkingsduur"),
            rows=(
                ("Snelwerkend", "aspart, lispro, glulisine", "10–15 min", "1–2 uur", "3–5 uur"),
                ("Kortwerkend", "humane (regular) insuline", "30 min", "2–4 uur", "6–8 uur"),
                ("Middellangwerkend", "NPH-insuline (isofaan)", "1–2 uur", "4–8 uur", "12–18 uur"),
                ("Langwerkend", "glargine, detemir", "1–2 uur", "geen duidelijke", "20–24 uur"),
                ("Ultralangwerkend", "degludec", "1–2 uur", "geen", "meer dan 42 uur"),
            ),
            widths=(0.22, 0.28, 0.14, 0.17, 0.19),
        ),
        Para(
            "Snelwerkende insuline wordt net vóór de maaltijd gegeven (0 tot 15 minuten vooraf). Langwerkende "
            "insuline wordt elke dag op hetzelfde tijdstip toegediend, los van de maaltijden. Bij een "
            "nuchtere patiënt wordt de basale insuline meestal verder gegeven, eventueel in een aangepaste "
            "dosis; de maaltijdinsuline wordt dan overgeslagen. Overleg bij twijfel met de arts of de "
            "diabetesverpleegkundige en volg de officiële bijsluiter."
        ),
        NewPage(),
        Heading("4. Benodigdheden"),
        Bullets(
            (
                "insulinepen volgens voorschrift, op naam van de patiënt;",
                "één nieuwe pennaald van 4 mm per injectie;",
                "glucosemeter en teststrips;",
                "naaldcontainer binnen handbereik.",
            )
        ),
        Para("Ontsmetten van een schone huid is niet nodig. Reinig een zichtbaar vuile huid met water."),
        Heading("5. Werkwijze"),
        Steps(
            (
                "Controleer het voorschrift: juiste patiënt, insuline, dosis, tijdstip en toedieningsweg.",
                "Identificeer de patiënt met naam en geboortedatum.",
                "Meet de glycemie vóór de toediening en noteer de waarde in het EPD.",
                "Voer handhygiëne uit.",
                "Meng troebele insuline (NPH, mengsels): rol de pen 10 keer en kantel hem 10 keer.",
                "Plaats een nieuwe pennaald en doe een veiligheidstest met 2 eenheden.",
                "Stel de voorgeschreven dosis in.",
                "Prik loodrecht (90°); met een naald van 4 mm is een huidplooi meestal niet nodig.",
                "Druk de knop volledig in. Laat de naald na het inspuiten nog 10 seconden in de huid.",
                "Gooi de naald meteen in de naaldcontainer; zet nooit de dop terug op de naald.",
                "Registreer tijdstip, geïnjecteerde dosis, prikplaats en glycemie in het EPD.",
            )
        ),
        Para(
            "Bij de veiligheidstest moet een druppel insuline aan de naaldpunt verschijnen. Verschijnt er "
            "geen druppel, herhaal dan de test maximaal drie keer en vervang daarna de naald of de pen."
        ),
        NewPage(),
        Heading("6. Injectieplaatsen"),
        Bullets(
            (
                "Buik: snelste opname, voorkeur voor snelwerkende insuline; minstens 5 cm van de navel.",
                "Dijen (voor- en zijkant): tragere opname, geschikt voor NPH en langwerkende insuline.",
                "Billen: tragere opname.",
                "Bovenarm: alleen bij voldoende onderhuids vet.",
            )
        ),
        Para(
            "Wissel bij elke injectie van prikplaats binnen hetzelfde gebied, met minstens 1 cm afstand tot de "
            "vorige prik. Prik niet in lipohypertrofie (verdikte, rubberachtige huid): de opname is daar "
            "onvoorspelbaar. Controleer de injectieplaatsen minstens eenmaal per week."
        ),
        Heading("7. Hypoglycemie"),
        Para("Hypoglycemie is een glycemie lager dan 70 mg/dL (3,9 mmol/L)."),
        Steps(
            (
                "Geef 15 tot 20 g snelle suikers, bv. 150–200 ml fruitsap of gewone frisdrank.",
                "Meet de glycemie opnieuw na 15 minuten; herhaal als ze nog lager is dan 70 mg/dL.",
                "Geef daarna een tussendoortje met trage koolhydraten.",
            )
        ),
        Para(
            "Bij bewustzijnsdaling geef je niets via de mond: geef 1 mg glucagon i.m. of, met een i.v. "
            "toegang, 50 ml glucose 30% i.v. en verwittig de arts."
        ),
        Heading("8. Bewaren"),
        ValueTable(
            header=("Situatie", "Temperatuur", "Houdbaarheid"),
            rows=(
                ("Ongeopende pen of voorraad", "koelkast, 2–8 °C", "tot de vervaldatum"),
                ("Aangebroken pen", "kamertemperatuur, max. 30 °C", "4 weken (28 dagen)"),
            ),
            widths=(0.36, 0.34, 0.30),
        ),
        Para("Een aangebroken pen is 4 weken houdbaar op kamertemperatuur. Vries insuline nooit in."),
    ),
    facts=(
        Fact(
            1,
            "Een insulinepen is strikt persoonsgebonden, ook na het wisselen van de naald.",
            "pen persoonsgebonden",
        ),
        Fact(2, "Laat de naald na het inspuiten nog 10 seconden in de huid.", "naald 10 s laten zitten"),
        Fact(3, "Een aangebroken pen is 4 weken houdbaar op kamertemperatuur.", "aangebroken pen 4 weken"),
    ),
)

BLOEDAFNAME = SampleDoc(
    name="bloedafname",
    code="UZV-LAB-005",
    title="Veneuze bloedafname",
    audience=("alle",),
    department=("klinisch laboratorium", "verpleging"),
    scope="Doelgroep: alle patiënten; bij jonge kinderen prikt een verpleegkundige van de "
    "kinderafdeling. Dienst: klinisch laboratorium en verpleging.",
    blocks=(
        Heading("1. Doel"),
        Para(
            "Deze procedure beschrijft de veneuze bloedafname met een vacuümsysteem door verpleegkundigen en "
            "laboranten. Een correcte afname voorkomt hemolyse, foutieve resultaten en verwisseling van "
            "stalen. Elke buis wordt pas geëtiketteerd wanneer de patiënt actief geïdentificeerd is."
        ),
        Heading("2. Voorbereiding"),
        Bullets(
            (
                "Identificeer de patiënt actief met naam en geboortedatum en vergelijk met het polsbandje.",
                "Controleer of de patiënt nuchter moet zijn (nuchtere glycemie: minstens 8 uur niet eten).",
                "Prik nooit boven een lopend infuus (bv. NaCl 0,9%): dat verdunt het staal.",
                "Prik niet in een arm met een AV-fistel of aan de kant van een okselklieruitruiming.",
                "Materiaal: handschoenen, stuwband, alcohol 70%, naald 21G (groen) of vleugelnaald 23G "
                "(blauw) bij fragiele venen, buizen, gaasje, pleister, naaldcontainer.",
            )
        ),
        Heading("3. Stuwband"),
        Para(
            "Leg de stuwband 7 à 10 cm boven de punctieplaats aan. Laat de stuwband maximaal 1 minuut zitten. "
            "Een langere stuwing verhoogt onder meer kalium, eiwitten en hematocriet. Laat de patiënt niet "
            "pompen met de vuist. Maak de stuwband los zodra het bloed in de eerste buis stroomt."
        ),
        Para(
            "Lukt het niet om binnen 1 minuut een geschikte ader te vinden, maak de stuwband dan los en wacht "
            "2 minuten voor je hem opnieuw aanlegt. Bij angstige patiënten helpen afleiding en liggend prikken. "
            "Een warm kompres op de onderarm maakt de aders beter zichtbaar bij een moeilijke "
            "veneuze toegang."
        ),
        NewPage(),
        Heading("4. Werkwijze"),
        Steps(
            (
                "Voer handhygiëne uit en trek handschoenen aan.",
                "Leg de stuwband aan; kies bij voorkeur de vena mediana cubiti in de elleboogplooi.",
                "Ontsmet de huid met alcohol 70% en laat 30 seconden drogen. Palpeer daarna niet meer.",
                "Prik met de schuine kant van de naald naar boven, onder een hoek van 15 à 30°.",
                "Vul de buizen in de vaste volgorde (zie tabel); maak de stuwband los zodra het bloed stroomt.",
                "Zwenk elke buis meteen na afname voorzichtig om; niet schudden.",
                "Verwijder de laatste buis uit de houder vóór je de naald uittrekt.",
                "Activeer de naaldbeveiliging en gooi de naald in de naaldcontainer.",
                "Druk het gaasje 2 tot 3 minuten aan, langer bij antistolling; plooi de arm niet.",
                "Etiketteer de buizen bij de patiënt, nooit vooraf.",
            )
        ),
        Para(
            "Prik maximaal twee keer en gebruik per poging één nieuwe naald; lukt het na twee pogingen "
            "niet, vraag dan een ervaren collega."
        ),
        Heading("5. Volgorde van de buizen"),
        ValueTable(
            header=("Nr.", "Buis (dopkleur)", "Additief", "Omzwenken", "Voorbeelden"),
            rows=(
                ("1", "Bloedkweekflessen", "kweekmedium", "voorzichtig", "bloedkweek"),
                ("2", "Lichtblauw", "natriumcitraat 3,2%", "3–4 keer", "PT/INR, aPTT"),
                ("3", "Rood of goud (gel)", "stollingsactivator", "5 keer", "serologie, CRP"),
                ("4", "Groen", "lithiumheparine", "8–10 keer", "ionogram, nierfunctie"),
                ("5", "Paars", "EDTA", "8–10 keer", "bloedbeeld, HbA1c"),
                ("6", "Grijs", "fluoride/oxalaat", "8–10 keer", "glucose, lactaat"),
            ),
            widths=(0.07, 0.24, 0.25, 0.17, 0.27),
        ),
        Para(
            "Vul de citraatbuis altijd tot de vullijn. De verhouding bloed/citraat moet 9:1 zijn. Is de "
            "citraatbuis de eerste buis en gebruik je een vleugelnaald, neem dan eerst een blanco afvalbuis "
            "om de lucht uit het slangetje te verwijderen."
        ),
        NewPage(),
        Heading("6. Complicaties"),
        Bullets(
            (
                "Hematoom: stop de afname, maak de stuwband los en druk aan.",
                "Vasovagale reactie (bleek, zweten, duizelig): stop, leg de patiënt plat met de benen hoger "
                "en controleer pols en bloeddruk. Verwittig de arts bij een pols onder 50 bpm, een SpO2 "
                "onder 92% of bewustzijnsverlies.",
                "Zenuwprikkeling (schietende pijn, tintelingen): stop onmiddellijk en trek de naald terug.",
                "Arteriële punctie (helderrood, pulserend bloed): stop en druk minstens 5 minuten aan.",
            )
        ),
        Heading("7. Prikaccident"),
        Steps(
            (
                "Laat de wonde spontaan bloeden; niet knijpen of uitzuigen.",
                "Spoel met water en ontsmet met alcohol 70%.",
                "Meld het accident meteen bij de arbeidsgeneeskundige dienst, 's nachts op de spoed.",
                "Laat bij de bronpatiënt (met toestemming) bloed afnemen voor hepatitis B, hepatitis C en hiv.",
            )
        ),
        Para("Een eventuele post-expositieprofylaxe (PEP) start bij voorkeur binnen 2 uur na het accident."),
        Heading("8. Transport naar het laboratorium"),
        Para(
            "Bezorg de stalen binnen 2 uur aan het laboratorium. Bewaar buizen voor kalium niet in de "
            "koelkast: koude verhoogt het kalium vals. De grijze fluoridebuis remt de glycolyse, zodat de "
            "glucosewaarde stabiel blijft. Stalen voor bloedgas en ammoniak worden op ijs en onmiddellijk "
            "verstuurd; de laboratoriumsecretariaatsmedewerker registreert het tijdstip van ontvangst."
        ),
    ),
    facts=(
        Fact(1, "Laat de stuwband maximaal 1 minuut zitten.", "stuwband max 1 minuut"),
        Fact(2, "Vul de citraatbuis altijd tot de vullijn.", "citraatbuis tot de vullijn"),
        Fact(3, "Bezorg de stalen binnen 2 uur aan het laboratorium.", "stalen binnen 2 uur naar labo"),
    ),
)

DECUBITUSPREVENTIE = SampleDoc(
    name="decubituspreventie",
    code="UZV-VPL-031",
    title="Decubituspreventie",
    audience=("volwassenen",),
    department=("verpleging",),
    scope="Doelgroep: volwassen patiënten (bij kinderen wordt de Braden-Q-schaal gebruikt). "
    "Dienst: verpleging.",
    blocks=(
        Heading("1. Doel"),
        Para(
            "Decubitus (doorligwonde) is lokale schade aan de huid en het onderliggende weefsel door druk, of "
            "door druk in combinatie met schuifkrachten, meestal boven een botuitsteeksel. Deze procedure "
            "beschrijft de risico-inschatting en de preventieve maatregelen bij volwassen patiënten. "
            "Preventie werkt alleen efficiënt als de hele zorgverleningsketen dezelfde afspraken volgt."
        ),
        Heading("2. Risico-inschatting met de Braden-schaal"),
        Para(
            "Scoor elke patiënt binnen 24 uur na opname met de Braden-schaal. Herhaal de score dagelijks op "
            "intensieve zorg, minstens tweemaal per week op de andere afdelingen en bij elke wijziging in de "
            "toestand. De Braden-schaal heeft zes onderdelen:"
        ),
        Bullets(
            (
                "zintuiglijke waarneming (1–4);",
                "vochtigheid van de huid (1–4);",
                "activiteit (1–4);",
                "mobiliteit (1–4);",
                "voeding (1–4);",
                "wrijving en schuifkracht (1–3).",
            )
        ),
        Para("De totaalscore ligt tussen 6 en 23. Hoe lager de score, hoe hoger het risico."),
        ValueTable(
            header=("Bradenscore", "Risico", "Beleid"),
            rows=(
                ("19–23", "Geen verhoogd risico", "Huidinspectie bij de dagelijkse zorg"),
                ("15–18", "Licht risico", "Wisselhouding elke 4 uur, hielen vrijleggen"),
                ("13–14", "Matig risico", "Wisselhouding elke 2–4 uur, drukverdelende matras"),
                ("10–12", "Hoog risico", "Wisselhouding elke 2 uur, drukverdelende matras"),
                (
                    "9 of lager",
                    "Zeer hoog risico",
                    "Wisseldrukmatras, overleg met de wondzorgverpleegkundige",
                ),
            ),
            widths=(0.17, 0.23, 0.60),
        ),
        NewPage(),
        Heading("3. Wisselhouding"),
        Para(
            "Verander de houding van risicopatiënten elke 2 tot 4 uur. Het interval hangt af van de huid, de "
            "algemene toestand en het type matras; op een standaardmatras is het interval maximaal 2 uur."
        ),
        Bullets(
            (
                "Gebruik de 30°-zijligging in plaats van 90°: zo rust het gewicht niet op de heup.",
                "Houd het hoofdeinde zo laag mogelijk, bij voorkeur maximaal 30°, tenzij medisch anders "
                "voorgeschreven (bv. bij beademing).",
                "Leg de hielen vrij met een kussen onder de kuiten.",
                "Gebruik een glijzeil of tillaken bij het verplaatsen; sleep de patiënt niet over het laken.",
                "Beperk zitten in een stoel tot maximaal 2 uur aaneen bij een hoog risico.",
                "Gebruik geen ringkussens of waterzakken.",
                "Leg maximaal één laag (laken of onderlegger) tussen de patiënt en de matras.",
            )
        ),
        Para("Noteer elke houdingswissel in het wisselhoudingsschema van het EPD."),
        Heading("4. Huidinspectie"),
        Para(
            "Inspecteer de huid minstens eenmaal per dag, bij risicopatiënten bij elke houdingswissel: "
            "stuitje, zitbeenderen, hielen, enkels, heupen, ellebogen, achterhoofd en oren."
        ),
        Para(
            "Doe bij roodheid de vingerdruktest: druk enkele seconden met een vinger op de rode huid. Wordt "
            "de huid wit, dan is er wegdrukbare roodheid en nog geen decubitus. Blijft de huid rood, dan is "
            "er niet-wegdrukbare roodheid: decubitus categorie 1. Masseer rode huid nooit."
        ),
        Para(
            "De patiënt en de familie worden geïnformeerd over het risico en leren zelf kleine "
            "houdingsveranderingen te maken. Bij een thuiszorgoverdracht vermeldt de verpleegkundige de "
            "laatste Bradenscore en de gebruikte matras in de verpleegkundige ontslagbrief."
        ),
        NewPage(),
        Heading("5. Categorieën (EPUAP/NPIAP)"),
        ValueTable(
            header=("Categorie", "Kenmerken"),
            rows=(
                ("1", "Niet-wegdrukbare roodheid van de intacte huid"),
                ("2", "Oppervlakkig huidverlies of blaar met helder vocht"),
                ("3", "Volledig huidverlies; onderhuids vet zichtbaar, geen bot of pees"),
                ("4", "Volledig weefselverlies met zichtbaar bot, pees of spier"),
                ("Onbekende diepte", "Wondbed bedekt met necrose of beslag"),
            ),
            widths=(0.25, 0.75),
        ),
        Para(
            "Onderscheid decubitus van vochtletsel (IAD, incontinentie-geassocieerde dermatitis): diffuse, "
            "oppervlakkige roodheid in de bilnaad of liezen, niet boven een botuitsteeksel."
        ),
        Heading("6. Voeding en huidverzorging"),
        Bullets(
            (
                "Schakel de diëtist in bij ondervoeding of een verminderde inname.",
                "Streef naar 30–35 kcal/kg/dag en 1,25–1,5 g eiwit per kg lichaamsgewicht per dag.",
                "Bescherm de huid bij incontinentie met een barrièrecrème en pH-neutrale reinigingsdoekjes.",
            )
        ),
        Heading("7. Medische hulpmiddelen"),
        Para(
            "Ook hulpmiddelen veroorzaken decubitus: neusbril of zuurstofmasker, maagsonde, katheters, "
            "gipsverband en de saturatiemeter. Verplaats de SpO2-sensor minstens elke 4 uur naar een andere "
            "vinger. Controleer de huid onder hulpmiddelen minstens tweemaal per dag."
        ),
    ),
    facts=(
        Fact(1, "De totaalscore ligt tussen 6 en 23.", "Braden-totaal 6–23"),
        Fact(2, "Verander de houding van risicopatiënten elke 2 tot 4 uur.", "wisselhouding elke 2–4 uur"),
        Fact(2, "Masseer rode huid nooit.", "rode huid niet masseren"),
        Fact(
            3, "Controleer de huid onder hulpmiddelen minstens tweemaal per dag.", "huid onder hulpmiddelen"
        ),
    ),
)

DOCS: tuple[SampleDoc, ...] = (
    HANDHYGIENE,
    INSULINEPOMP_KINDEREN,
    INSULINE_VOLWASSENEN,
    BLOEDAFNAME,
    DECUBITUSPREVENTIE,
)

HH, POMP, INS, BLOED, DEC = (f"{d.name}.pdf" for d in DOCS)

QUESTIONS: tuple[Question, ...] = (
    Question("hoe lang handen wrijven met alcohol", {HH: "20 tot 30 seconden"}),
    Question("5 momenten handhygiëne?", {HH: "Na contact met de directe omgeving van de patiënt"}),
    Question("handen wassen ipv handalcohol wanneer", {HH: "als de handen zichtbaar vuil of nat zijn"}),
    Question("C. diff handalcohol ok?", {HH: "Handalcohol heeft geen effect op sporen van Clostridioides"}),
    Question("mag ik ring dragen tijdens zorg", {HH: "Draag geen ringen"}),
    Question("duur chirurgische handdesinfectie", {HH: "1,5–3 minuten"}),
    Question("hoeveel ml handalcohol per keer", {HH: "ongeveer 3 ml"}),
    Question("infusieset pomp kind hoe vaak vervangen", {POMP: "elke 2 tot 3 dagen"}),
    Question("ketonen 1,5 bij kind met pomp, wat doen?", {POMP: "onmiddellijk de kinderarts verwittigen"}),
    Question("glucagon dosis kind 20 kg", {POMP: "0,5 mg i.m. bij een gewicht onder 25 kg"}),
    Question("insulinepomp loskoppelen MRI?", {POMP: "Koppel pomp en sensor los vóór een MRI"}),
    Question("hypo bij kind: hoeveel suiker geven", {POMP: "0,3 g snelle suikers per kg"}),
    Question("hoelang mag pomp af zonder insuline", {POMP: "maximaal 1 uur"}),
    Question("hoe lang naald laten zitten na insuline spuiten", {INS: "nog 10 seconden in de huid"}),
    Question("aangebroken insulinepen hoelang houdbaar", {INS: "4 weken (28 dagen)"}),
    Question("werkingsduur NPH", {INS: "12–18 uur"}),
    Question("insuline s.c. waar prikken bij snelwerkende", {INS: "voorkeur voor snelwerkende insuline"}),
    Question("E of eenheden voluit schrijven?", {INS: "Schrijf het woord eenheden altijd voluit"}),
    Question(
        "hypo onder insuline: eerste actie",
        {POMP: "0,3 g snelle suikers per kg", INS: "15 tot 20 g snelle suikers"},
    ),
    Question("max tijd stuwband?", {BLOED: "maximaal 1 minuut"}),
    Question("volgorde buizen bloedafname", {BLOED: "Lichtblauw"}),
    Question("citraatbuis hoe ver vullen", {BLOED: "tot de vullijn"}),
    Question("bloed prikken arm met infuus NaCl 0,9%", {BLOED: "Prik nooit boven een lopend infuus"}),
    Question("prikaccident wat nu", {BLOED: "arbeidsgeneeskundige dienst"}),
    Question("wisselhouding hoe vaak", {DEC: "elke 2 tot 4 uur"}),
    Question("braden score hoog risico vanaf", {DEC: "10–12 Hoog risico"}),
    Question("rode huid stuit masseren?", {DEC: "Masseer rode huid nooit"}),
    Question("eiwitbehoefte decubitus per kg", {DEC: "1,25–1,5 g eiwit per kg"}),
    # Not answerable from any sample document ("not found" tests).
    Question("dosis paracetamol i.v. bij volwassene"),
    Question("isolatiemaatregelen bij mazelen"),
    Question("streefwaarde INR bij mechanische hartklep"),
)


# --------------------------------------------------------------------------------------------------------------
# Rendering
# --------------------------------------------------------------------------------------------------------------
def _marked(*words: str) -> dict[str, tuple[int, ...]]:
    """Map 'zieken|huis' style words to their lower-case form and allowed break positions."""
    result: dict[str, tuple[int, ...]] = {}
    for marked in words:
        parts = marked.split("|")
        positions = tuple(sum(len(p) for p in parts[:i]) for i in range(1, len(parts)))
        result["".join(parts).lower()] = positions
    return result


# Only these (compound) words are ever hyphenated, at the marked places. Fact sentences and answer snippets
# avoid them, so hyphenation never breaks a sentence that tests look for.
HYPHENATION = _marked(
    "ziekenhuis|hygiëne",
    "infectie|preventie|verpleeg|kundige",
    "verpleeg|eenheid",
    "verpleeg|eenheden",
    "hoofd|verpleeg|kundige",
    "infectie|preventie|comité",
    "medisch-farma|ceutisch",
    "insuline|toediening",
    "diabetes|verpleeg|kundige",
    "diabetes|team",
    "kinder|genees|kunde",
    "multi|disciplinaire",
    "maaltijd|insuline",
    "diabetes|verpleeg|kundige",
    "laboratorium|secretariaats|medewerker",
    "veneuze",
    "zorg|verlenings|keten",
    "thuis|zorg|overdracht",
    "houdings|veranderingen",
    "wond|zorg|verpleeg|kundige",
    "ontslag|brief",
    "insuline|pomp",
    "glucose|sensor",
    "pomp|storing",
    "bij|sluiter",
    "zit|beenderen",
    "gips|verband",
    "opper|vlakkige",
    "lipo|hyper|trofie",
    "rubber|achtige",
    "injectie|plaatsen",
    "intra|veneuze",
    "on|voorspel|baar",
)


def hyphenate(word: str) -> list[tuple[str, str]]:
    """reportlab hyphenator callback: (head, tail) pairs, longest head first."""
    positions = HYPHENATION.get(word.lower(), ())
    return [(word[:p], word[p:]) for p in reversed(positions)]


BODY = ParagraphStyle(
    "body",
    fontName="Helvetica",
    fontSize=10,
    leading=13.5,
    alignment=TA_JUSTIFY,
    spaceAfter=5,
    hyphenationLang=hyphenate,  # reportlab also accepts a callable instead of a pyphen language
)
LIST_ITEM = ParagraphStyle("item", parent=BODY, alignment=0, spaceAfter=1.5)
CELL = ParagraphStyle("cell", fontName="Helvetica", fontSize=9, leading=11.5)
CELL_HEAD = ParagraphStyle("cellhead", parent=CELL, fontName="Helvetica-Bold")
TITLE = ParagraphStyle("title", fontName="Helvetica-Bold", fontSize=17, leading=21, spaceAfter=6)
H2 = ParagraphStyle("h2", fontName="Helvetica-Bold", fontSize=12, leading=15, spaceBefore=8, spaceAfter=4)
NOTE = ParagraphStyle(
    "note", fontName="Helvetica-Bold", fontSize=10, leading=13, textColor=colors.HexColor("#b00020")
)
META = ParagraphStyle("meta", fontName="Helvetica-Oblique", fontSize=9, leading=12, spaceAfter=2)


def markup(text: str) -> str:
    return escape(text).replace("{fl}", LIGATURE_MARKUP)


def plain(text: str) -> str:
    return text.replace("{fl}", "fl")


def flowables(doc: SampleDoc) -> list[Flowable]:
    text_width = PAGE_W - 2 * MARGIN
    story: list[Flowable] = [
        Paragraph(markup(doc.title), TITLE),
        Paragraph(markup(FICTION), NOTE),
        Spacer(1, 4),
        Paragraph(markup(f"{doc.code} – {doc.version}"), META),
        Paragraph(markup(doc.scope), META),
        Spacer(1, 4),
    ]
    for block in doc.blocks:
        if isinstance(block, Heading):
            story.append(Paragraph(markup(block.text), H2))
        elif isinstance(block, Para):
            story.append(Paragraph(markup(block.text), BODY))
        elif isinstance(block, Bullets | Steps):
            numbered = isinstance(block, Steps)
            items = [ListItem(Paragraph(markup(t), LIST_ITEM)) for t in block.items]
            story.append(
                ListFlowable(
                    items,
                    bulletType="1" if numbered else "bullet",
                    start=1 if numbered else "•",
                    bulletFontName="Helvetica" if numbered else "Symbol",
                    bulletFontSize=10,
                    leftIndent=16,
                    bulletFormat="%s." if numbered else None,
                    spaceAfter=5,
                )
            )
        elif isinstance(block, ValueTable):
            data = [[Paragraph(markup(c), CELL_HEAD) for c in block.header]]
            data += [[Paragraph(markup(c), CELL) for c in row] for row in block.rows]
            table = Table(data, colWidths=[w * text_width for w in block.widths], repeatRows=1)
            table.setStyle(
                TableStyle(
                    [
                        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#dde6f0")),
                        ("GRID", (0, 0), (-1, -1), 0.4, colors.HexColor("#8899aa")),
                        ("VALIGN", (0, 0), (-1, -1), "TOP"),
                        ("TOPPADDING", (0, 0), (-1, -1), 3),
                        ("BOTTOMPADDING", (0, 0), (-1, -1), 3),
                    ]
                )
            )
            story += [table, Spacer(1, 6)]
        elif isinstance(block, NewPage):
            story.append(PageBreak())
    return story


def render(doc: SampleDoc) -> bytes:
    """Build the PDF twice: the first pass counts the pages for the "Pagina N van M" footer."""
    total = 0

    def header(canvas: Canvas, template: BaseDocTemplate) -> None:
        canvas.saveState()
        canvas.setFont("Helvetica-Bold", 9)
        canvas.drawString(MARGIN, PAGE_H - 1.25 * cm, HOSPITAL)
        canvas.setFont("Helvetica", 9)
        canvas.drawRightString(PAGE_W - MARGIN, PAGE_H - 1.25 * cm, f"{doc.code} – {doc.title}")
        canvas.setLineWidth(0.5)
        canvas.line(MARGIN, PAGE_H - 1.4 * cm, PAGE_W - MARGIN, PAGE_H - 1.4 * cm)
        canvas.restoreState()

    def footer(canvas: Canvas, template: BaseDocTemplate) -> None:
        canvas.saveState()
        canvas.setLineWidth(0.5)
        canvas.line(MARGIN, 1.45 * cm, PAGE_W - MARGIN, 1.45 * cm)
        canvas.setFont("Helvetica", 8)
        canvas.drawString(MARGIN, 1.05 * cm, FICTION)
        canvas.drawRightString(PAGE_W - MARGIN, 1.05 * cm, f"Pagina {template.page} van {total or '?'}")
        canvas.restoreState()

    def build() -> tuple[bytes, int]:
        buffer = io.BytesIO()
        template = BaseDocTemplate(
            buffer,
            pagesize=A4,
            leftMargin=MARGIN,
            rightMargin=MARGIN,
            topMargin=MARGIN,
            bottomMargin=MARGIN,
            title=doc.title,
            author=HOSPITAL,
            subject=f"{', '.join(doc.department)} – {FICTION}",
            keywords=[doc.code, *doc.audience, *doc.department],
            creator="Vraagbaak samples/make_samples.py",
            lang="nl-BE",
            invariant=1,
            pageCompression=1,
        )
        frame = Frame(MARGIN, MARGIN, PAGE_W - 2 * MARGIN, PAGE_H - 2 * MARGIN, id="body")
        template.addPageTemplates([PageTemplate(id="page", frames=[frame], onPage=header, onPageEnd=footer)])
        template.build(flowables(doc))
        return buffer.getvalue(), template.page

    _, total = build()
    data, pages = build()
    assert pages == total, (doc.name, pages, total)
    return data


# --------------------------------------------------------------------------------------------------------------
# Checks (pypdf read-back)
# --------------------------------------------------------------------------------------------------------------
def normalize(text: str) -> str:
    """What tests should compare against: whitespace runs collapsed to one space."""
    return re.sub(r"\s+", " ", text).strip()


def page_texts(data: bytes) -> list[str]:
    return [page.extract_text() for page in PdfReader(io.BytesIO(data)).pages]


def check(doc: SampleDoc, data: bytes, questions: Sequence[Question], fail: Callable[[str], None]) -> None:
    pdf = f"{doc.name}.pdf"
    reader = PdfReader(io.BytesIO(data))
    texts = page_texts(data)
    n = len(texts)
    expected_pages = 1 + sum(isinstance(b, NewPage) for b in doc.blocks)
    if n != expected_pages or not 2 <= n <= 4:
        fail(f"{pdf}: {n} pages, expected {expected_pages} (2-4); a section overflowed its page")
    if len(data) >= MAX_BYTES:
        fail(f"{pdf}: {len(data)} bytes >= {MAX_BYTES}")
    meta = reader.metadata
    if meta is None or meta.title != doc.title or meta.author != HOSPITAL:
        fail(f"{pdf}: title/author metadata wrong: {meta}")
    for i, text in enumerate(texts, start=1):
        for needle in (HOSPITAL, doc.code, f"Pagina {i} van {n}", FICTION):
            if needle not in text:
                fail(f"{pdf} page {i}: running header/footer text {needle!r} missing")
    full = "\n".join(texts)
    if not re.search(r"[a-zà-ÿ]-\n[a-zà-ÿ]", full):
        fail(f"{pdf}: no word hyphenated at a line end")
    for char in "éëï":
        if char not in full:
            fail(f"{pdf}: diacritic {char!r} missing")
    if not re.search(r"ffi|fl|\ufb02", full):
        fail(f"{pdf}: no ligature-prone word")
    for fact in doc.facts:
        sentence = normalize(fact.sentence)
        hits = [i for i, t in enumerate(texts, start=1) if sentence in normalize(t)]
        if hits != [fact.page]:
            fail(f"{pdf}: fact {fact.sentence!r} found on pages {hits}, expected [{fact.page}]")
        elif fact.sentence not in texts[fact.page - 1]:
            fail(f"{pdf}: fact {fact.sentence!r} is wrapped or hyphenated on page {fact.page}")
    body = normalize(full)
    for q in questions:
        if pdf in q.evidence and normalize(plain(q.evidence[pdf])) not in body:
            fail(f"{pdf}: answer {q.evidence[pdf]!r} for {q.text!r} not in extracted text")


# --------------------------------------------------------------------------------------------------------------
# Outputs
# --------------------------------------------------------------------------------------------------------------
README_HEAD = """\
# Sample documents

Five small **fictional** clinical procedures of the fictional hospital "UZ Voorbeeld", written for Vraagbaak
to exercise ingestion, retrieval, metadata filtering and evaluation. Every page says
"Voorbeelddocument – fictief, niet voor klinisch gebruik": the content is plausible but has not been
validated and must never be used for patient care.

This file, the PDFs, the `.meta.json` sidecars, `questions.csv` and `facts.json` are all generated by
`make_samples.py`; edit the script, not the outputs. Regenerate (byte-identical, reportlab `invariant=1`):

```
.venv/bin/python samples/make_samples.py
```

The script reads every PDF back with pypdf and fails if a fact is not on its page or an answer is missing.

## Files

| File | Audience | Department | Pages |
|---|---|---|---|
{docs}

* `documents/<name>.meta.json`: `{{"audience": [...], "department": [...]}}` (audience `alle` = everyone).
* `questions.csv`: `question,relevant_documents`; several file names are separated by `;`. The last
  {n_unanswerable} questions have an empty `relevant_documents`: no sample document answers them.
* `facts.json`: `[{{"document", "page", "sentence"}}]`, pages 1-based.
* `head-training-questions.csv` (written by hand, not by this script): 70 more questions about the five
  procedures and the Dutch long-term care regulation, in `questions.csv`'s format, used only to train the
  committed Gemma EAGLE head (docs/speculative-engine.md); the evaluation questions stay in `questions.csv`.

## What the PDFs exercise

* Running header (`UZ Voorbeeld` + document code and title) and footer (fictional-notice line and
  `Pagina N van M`) on every page.
* Words hyphenated at a line end (e.g. `verpleeg-` / `eenheden`, `insuline-` / `pomp`, at least one per
  PDF), only in compound words that facts and answers avoid.
* Bullets extract as `•` and step numbers as `1.` on a line of their own; table cells one per line.
* Ligature-prone words (`officieel`, `afleiding`, `efficiënt`, `fluoride`) in plain Helvetica, and one real
  ligature glyph: `handhygiene.pdf` page 3 has "Aﬂeiding" (U+FB02, Vera font), so extraction gives
  `Aﬂeiding` until the text is NFKC-normalised.
* Dutch diacritics (é, ë, ï, ö, ü), tables of values, bulleted and numbered lists, abbreviations (i.v., i.m.,
  s.c., NaCl 0,9%, SpO2, bpm, mg/dL, mmol/L, EPD, DKA, CGM).
* Two versions of a similar procedure for different patient groups: `insulinepomp-kinderen.pdf` (kinderen)
  and `insuline-volwassenen.pdf` (volwassenen).

## Known facts per page

Each sentence occurs verbatim, on one line, in pypdf's `extract_text()` of exactly that page (and on no other
page of the document). Compare after collapsing whitespace to be robust to other extractors.

| Fact | Document | Page | Exact sentence |
|---|---|---|---|
{facts}
"""


def write_outputs() -> int:
    DOC_DIR.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    page_counts: dict[str, int] = {}
    for doc in DOCS:
        data = render(doc)
        if render(doc) != data:
            errors.append(f"{doc.name}.pdf: output is not deterministic")
        check(doc, data, QUESTIONS, errors.append)
        page_counts[doc.name] = len(PdfReader(io.BytesIO(data)).pages)
        (DOC_DIR / f"{doc.name}.pdf").write_bytes(data)
        sidecar = {"audience": list(doc.audience), "department": list(doc.department)}
        (DOC_DIR / f"{doc.name}.meta.json").write_text(json.dumps(sidecar, ensure_ascii=False) + "\n")

    for q in QUESTIONS:
        unknown = set(q.evidence) - {f"{d.name}.pdf" for d in DOCS}
        if unknown:
            errors.append(f"question {q.text!r} names unknown documents {sorted(unknown)}")

    with (HERE / "questions.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["question", "relevant_documents"])
        for q in QUESTIONS:
            writer.writerow([q.text, ";".join(q.evidence)])

    facts = [
        {"document": f"{d.name}.pdf", "page": f.page, "sentence": f.sentence} for d in DOCS for f in d.facts
    ]
    (HERE / "facts.json").write_text(json.dumps(facts, ensure_ascii=False, indent=2) + "\n")

    doc_rows = "\n".join(
        f"| `documents/{d.name}.pdf` ({d.title}) | {', '.join(d.audience)} | {', '.join(d.department)} "
        f"| {page_counts[d.name]} |"
        for d in DOCS
    )
    fact_rows = "\n".join(
        f"| {f.summary} | `{d.name}.pdf` | {f.page} | {f.sentence} |" for d in DOCS for f in d.facts
    )
    n_unanswerable = sum(not q.evidence for q in QUESTIONS)
    readme = README_HEAD.format(docs=doc_rows, facts=fact_rows, n_unanswerable=n_unanswerable)
    (HERE / "README.md").write_text(readme)

    for error in errors:
        print(f"ERROR: {error}", file=sys.stderr)
    if not errors:
        sizes = ", ".join(f"{d.name}.pdf {(DOC_DIR / f'{d.name}.pdf').stat().st_size} B" for d in DOCS)
        print(f"wrote {len(DOCS)} PDFs ({sizes}), {len(QUESTIONS)} questions, {len(facts)} facts")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(write_outputs())
