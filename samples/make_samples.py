"""Generate the fictional sample hospital documents that ship with Vraagbaak.

Writes into ``samples/``:

* ``documents/<name>.pdf``        five small Dutch clinical procedures of the fictional hospital "UZ Voorbeeld"
* ``documents/<name>.meta.json``  sidecar metadata ({"audience": [...], "department": [...]})
* ``questions.csv``               evaluation questions (``question,relevant_documents``)
* ``facts.json``                  exact sentences and the page they are on, for tests
* ``README.md``                   description and the same facts as a table
* ``heldout/``                    a second collection in the same layout (``documents/``, ``questions.csv``,
                                  ``facts.json``): twelve more procedures with questions written blind, held out
                                  to measure abstention; never used to choose thresholds

Everything is deterministic (reportlab ``invariant=1``): running the script again gives identical bytes.
After writing, the PDFs are read back with pypdf and checked (facts on the right page, answers present,
running header/footer on every page, a hyphenated line end, diacritics, size); an answer snippet must not occur
in a document its question does not list, nor a key word of an unanswerable question in any document.

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
    # for a question no document answers: words (matched at a word start, any case) that no sample document of
    # either collection contains, so that the question stays unanswerable when both collections are indexed
    absent: tuple[str, ...] = ()


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
# Held-out collection (samples/heldout/): twelve more procedures and their questions, written blind, to measure
# whether the chat says it found no answer when a procedure is not indexed. Never used to choose thresholds.
# --------------------------------------------------------------------------------------------------------------
PARACETAMOL_KINDEREN = SampleDoc(
    name="paracetamol-kinderen",
    code="UZV-KIN-021",
    title="Paracetamol bij kinderen",
    audience=("kinderen",),
    department=("kindergeneeskunde", "ziekenhuisapotheek"),
    scope="Doelgroep: kinderen van 1 maand tot 18 jaar met een gewicht onder 50 kg; vanaf 50 kg geldt de "
    "procedure Paracetamol bij volwassenen (UZV-APO-009). Dienst: kindergeneeskunde en ziekenhuisapotheek.",
    version="Versie 2.1 – goedgekeurd op 03-09-2024 – herziening uiterlijk 03-09-2027",
    blocks=(
        Heading("1. Doel en toepassingsgebied"),
        Para(
            "Paracetamol is het eerste middel bij lichte tot matige pijn en bij koorts met ongemak bij kinderen: het "
            "werkt efficiënt en is veilig als de dosis klopt. "
            "Deze procedure beschrijft de dosering per kilogram lichaamsgewicht voor orale (p.o.), rectale en "
            "intraveneuze (i.v.) toediening op de kinderafdelingen van UZ Voorbeeld. Ze geldt niet voor neonaten "
            "jonger dan 1 maand: voor hen bepaalt de neonatoloog de dosis volgens het neonatologieformularium."
        ),
        Heading("2. Algemene afspraken"),
        Bullets(
            (
                "Doseer op het actuele gewicht: weeg het kind bij opname en noteer het gewicht in het EPD.",
                "Geef paracetamol bij kinderen niet vaker dan om de 6 uur.",
                "Gebruik één toedieningsweg tegelijk; wissel je van weg, respecteer dan het interval.",
                "Vraag de ouders naar paracetamol die thuis al werd gegeven, ook in combinatiepreparaten zoals "
                "hoest- en griepmiddelen.",
                "Laat elke i.v. dosis dubbel controleren door een tweede verpleegkundige, in mg én in ml.",
            )
        ),
        Heading("3. Dosering"),
        Para(
            "De orale en de intraveneuze dosis is 15 mg/kg per gift. De maximale dagdosis is 60 mg/kg per "
            "24 uur en nooit meer dan 4 g per dag. Bij een kind met leverziekte, ondervoeding of langdurig vasten "
            "beperkt de kinderarts de dagdosis tot 40 mg/kg."
        ),
        ValueTable(
            header=("Toedieningsweg", "Dosis per gift", "Interval", "Maximum per 24 uur"),
            rows=(
                ("p.o. (siroop 24 mg/ml of tablet)", "15 mg/kg", "elke 6 uur", "60 mg/kg, max. 4 g"),
                ("Rectaal (zetpil)", "20 mg/kg", "elke 8 uur", "60 mg/kg, max. 4 g"),
                ("i.v., gewicht 10 kg of meer", "15 mg/kg", "elke 6 uur", "60 mg/kg, max. 4 g"),
                ("i.v., gewicht onder 10 kg", "7,5 mg/kg", "elke 6 uur", "30 mg/kg"),
            ),
            widths=(0.34, 0.20, 0.18, 0.28),
        ),
        Para(
            "Zetpillen worden niet gehalveerd: kies de sterkte die het dichtst bij de berekende dosis ligt, "
            "zonder die te overschrijden. De apotheek levert zetpillen van 100, 200, 350 en 500 mg."
        ),
        NewPage(),
        Heading("4. Doseertabel p.o. en i.v. (vanaf 10 kg)"),
        ValueTable(
            header=("Gewicht", "Dosis per gift (15 mg/kg)", "Siroop 24 mg/ml per gift", "Maximum per 24 uur"),
            rows=(
                ("10 kg", "150 mg", "6,3 ml", "600 mg"),
                ("15 kg", "225 mg", "9,4 ml", "900 mg"),
                ("20 kg", "300 mg", "12,5 ml", "1200 mg"),
                ("25 kg", "375 mg", "15,6 ml", "1500 mg"),
                ("30 kg", "450 mg", "18,8 ml", "1800 mg"),
                ("40 kg", "600 mg", "25 ml", "2400 mg"),
            ),
            widths=(0.16, 0.30, 0.28, 0.26),
        ),
        Para(
            "Meet siroop altijd af met de doseerspuit uit de verpakking, nooit met een lepel. Een kind dat de "
            "siroop binnen 15 minuten uitbraakt, mag één keer opnieuw dezelfde dosis krijgen."
        ),
        Heading("5. Intraveneuze toediening"),
        Steps(
            (
                "Controleer het voorschrift: dosis in mg, gewicht en tijdstip van de vorige gift.",
                "Gebruik paracetamol 10 mg/ml oplossing voor infusie en trek de dosis op uit de flacon met een "
                "spuit; sluit bij kinderen nooit de volledige flacon aan.",
                "Laat de berekende dosis in mg en ml dubbel controleren.",
                "Dien de dosis toe met de spuitpomp in 15 minuten.",
                "Spoel de lijn na met NaCl 0,9%.",
                "Registreer dosis, tijdstip en toedieningsweg in het EPD.",
            )
        ),
        Para(
            "Schakel over op p.o. zodra het kind kan drinken en niet meer braakt. Een aangeprikte flacon wordt "
            "meteen gebruikt; restanten gaan weg."
        ),
        NewPage(),
        Heading("6. Koorts"),
        Para(
            "Koorts is geen reden op zich om paracetamol te geven: behandel het ongemak van het kind, niet het getal "
            "op de thermometer. Geef paracetamol bij koorts vanaf 38,5 °C als het kind zich ziek of ongemakkelijk "
            "voelt. Meet de temperatuur opnieuw 1 uur na een orale gift."
        ),
        Para("Paracetamol voorkomt geen koortsstuipen."),
        Para(
            "Zorg daarnaast voor voldoende drinken, lichte kledij en een kamertemperatuur van ongeveer 20 °C. "
            "Wikkel een kind met koorts niet in natte doeken."
        ),
        Heading("7. Overdosering"),
        Para(
            "Een inname van 150 mg/kg of meer binnen 24 uur is potentieel levertoxisch. Verwittig onmiddellijk de "
            "kinderarts, ook als het kind geen klachten heeft: de eerste 24 uur zijn er vaak geen symptomen."
        ),
        Steps(
            (
                "Laat een paracetamolspiegel bepalen 4 uur na de inname, niet vroeger.",
                "Bepaal tegelijk de leverfuncties en de stolling.",
                "Start N-acetylcysteïne i.v. op voorschrift, volgens het antidotumschema van de apotheek.",
                "Overleg bij twijfel met het Antigifcentrum.",
            )
        ),
        Heading("8. Ontslag en informatie"),
        Para(
            "De ouders worden geïnformeerd over de dosis in ml, het interval en het maximale aantal giften per dag. "
            "Ze krijgen een schriftelijk doseerschema mee en de raad om paracetamol buiten het bereik van kinderen "
            "te bewaren. Een kind dat na 3 dagen nog koorts heeft, wordt opnieuw door een arts gezien."
        ),
    ),
    facts=(
        Fact(1, "Geef paracetamol bij kinderen niet vaker dan om de 6 uur.", "pcm kind minstens 6 uur"),
        Fact(2, "Dien de dosis toe met de spuitpomp in 15 minuten.", "pcm i.v. kind in 15 min"),
        Fact(3, "Paracetamol voorkomt geen koortsstuipen.", "geen preventie koortsstuipen"),
    ),
)

PARACETAMOL_VOLWASSENEN = SampleDoc(
    name="paracetamol-volwassenen",
    code="UZV-APO-009",
    title="Paracetamol bij volwassenen",
    audience=("volwassenen",),
    department=("verpleging", "ziekenhuisapotheek"),
    scope="Doelgroep: volwassen patiënten (18 jaar en ouder) en adolescenten vanaf 50 kg. "
    "Dienst: verpleging en ziekenhuisapotheek.",
    blocks=(
        Heading("1. Doel en toepassingsgebied"),
        Para(
            "Deze procedure beschrijft de dosering en de veilige toediening van paracetamol (acetaminofen) bij "
            "volwassenen, oraal (p.o.), rectaal en intraveneus (i.v.). Paracetamol is de basis van de multimodale "
            "pijnstilling en wordt bij voorkeur op vaste tijdstippen gegeven. Voor kinderen onder 50 kg geldt de "
            "procedure Paracetamol bij kinderen (UZV-KIN-021)."
        ),
        Heading("2. Standaarddosering"),
        ValueTable(
            header=("Toedieningsweg", "Dosis per gift", "Minimaal interval", "Maximum per 24 uur"),
            rows=(
                ("p.o. (tablet, bruistablet)", "1 g", "4 uur", "4 g"),
                ("Rectaal (zetpil)", "1 g", "6 uur", "4 g"),
                ("i.v., gewicht 50 kg of meer", "1 g", "4 uur", "4 g"),
                ("i.v., gewicht onder 50 kg", "15 mg/kg", "4 uur", "60 mg/kg, max. 3 g"),
            ),
            widths=(0.34, 0.20, 0.20, 0.26),
        ),
        Para("Het minimale interval tussen twee giften is 4 uur."),
        Para(
            "Op een vast schema krijgt de patiënt 1 g om 6, 12, 18 en 24 uur. Een gift 'indien nodig' mag alleen "
            "als de maximale dagdosis, inclusief het vaste schema, niet wordt overschreden."
        ),
        Heading("3. Verlaagde maximale dagdosis"),
        Para("Geef maximaal 3 g per 24 uur bij:"),
        Bullets(
            (
                "een lichaamsgewicht onder 50 kg;",
                "chronisch alcoholgebruik;",
                "ondervoeding, anorexie of langdurig vasten;",
                "leverinsufficiëntie, na overleg met de arts.",
            )
        ),
        Para(
            "Bij ernstige nierinsufficiëntie (eGFR onder 30 ml/min) verleng je het interval tot minstens 6 uur; "
            "de dosis per gift blijft 1 g."
        ),
        NewPage(),
        Heading("4. Intraveneuze toediening"),
        Para(
            "Geef paracetamol alleen i.v. als de patiënt niet kan slikken, braakt of niets via de mond mag "
            "innemen: de orale vorm werkt even goed. Herbekijk de toedieningsweg elke dag en schakel over naar "
            "p.o. zodra de patiënt kan eten en drinken."
        ),
        Steps(
            (
                "Controleer het voorschrift en het tijdstip van de vorige gift, ook van thuismedicatie en "
                "combinatiepreparaten (bv. paracetamol met codeïne).",
                "Identificeer de patiënt met naam en geboortedatum.",
                "Gebruik de kant-en-klare flacon van 1 g in 100 ml (10 mg/ml).",
                "Trek bij een gewicht onder 50 kg de berekende dosis op en dien die toe met een spuitpomp.",
                "Dien paracetamol i.v. toe over 15 minuten.",
                "Spoel de lijn na met NaCl 0,9%.",
                "Registreer de toediening en evalueer het effect op de pijn.",
            )
        ),
        Para(
            "Een sneller inlopen geeft geen betere pijnstilling, wel meer kans op een bloeddrukdaling. Een "
            "flacon die werd aangeprikt, wordt meteen gebruikt."
        ),
        Heading("5. Interacties en aandachtspunten"),
        Bullets(
            (
                "Geef nooit meer dan één preparaat met paracetamol tegelijk.",
                "Paracetamol versterkt het effect van vitamine K-antagonisten (warfarine, acenocoumarol) bij meer "
                "dan 2 g per dag gedurende meerdere dagen: volg de INR op.",
                "Meet bij neutropene patiënten de temperatuur vóór elke gift: paracetamol kan koorts maskeren.",
                "Een combinatie met NSAID's of opioïden is mogelijk en gebruikelijk.",
                "Bij een allergie voor paracetamol (zeldzaam) overlegt de arts een alternatief.",
            )
        ),
        NewPage(),
        Heading("6. Overdosering"),
        Para(
            "Een inname van meer dan 150 mg/kg of meer dan 10 g binnen 24 uur is potentieel levertoxisch. Bij "
            "risicofactoren (zie punt 3) ligt de grens lager, op 75 mg/kg. Ook herhaalde giften boven de maximale "
            "dagdosis gedurende meerdere dagen kunnen de lever beschadigen."
        ),
        Steps(
            (
                "Verwittig onmiddellijk de arts.",
                "Laat een paracetamolspiegel bepalen 4 uur na de inname, niet vroeger.",
                "Bepaal tegelijk de leverfuncties, de stolling en de nierfunctie.",
                "Start N-acetylcysteïne i.v. op voorschrift, volgens het antidotumschema van de apotheek.",
            )
        ),
        Para(
            "Wacht niet op de spiegel om N-acetylcysteïne te starten als de inname meer dan 8 uur geleden is of "
            "als het tijdstip van de inname onbekend is."
        ),
        Heading("7. Registratie en opvolging"),
        Para(
            "Registreer elke gift met dosis, toedieningsweg en tijdstip in het EPD. Bij een vast schema beoordeelt "
            "de arts dagelijks of paracetamol nog nodig is. De patiënt wordt geïnformeerd over de maximale "
            "dagdosis en krijgt bij ontslag een overzicht van alle pijnmedicatie mee, met het officiële "
            "schema van de ziekenhuisapotheek."
        ),
    ),
    facts=(
        Fact(1, "Het minimale interval tussen twee giften is 4 uur.", "pcm volwassene minstens 4 uur"),
        Fact(2, "Dien paracetamol i.v. toe over 15 minuten.", "pcm i.v. volwassene over 15 min"),
        Fact(
            3,
            "Laat een paracetamolspiegel bepalen 4 uur na de inname, niet vroeger.",
            "spiegel 4 uur na inname",
        ),
    ),
)

BLOEDTRANSFUSIE_VOLWASSENEN = SampleDoc(
    name="bloedtransfusie-volwassenen",
    code="UZV-BLB-002",
    title="Bloedtransfusie bij volwassenen",
    audience=("volwassenen",),
    department=("bloedbank", "verpleging"),
    scope="Doelgroep: volwassen patiënten (18 jaar en ouder); voor neonaten geldt UZV-NEO-007. "
    "Dienst: bloedbank en verpleging.",
    blocks=(
        Heading("1. Doel"),
        Para(
            "Deze procedure beschrijft het aanvragen, controleren, toedienen en opvolgen van bloedproducten bij "
            "volwassenen: erytrocytenconcentraat (EC), trombocytenconcentraat (TC) en plasma. Elke transfusie "
            "gebeurt op voorschrift van een arts en na geïnformeerde toestemming van de patiënt, die officieel in het "
            "EPD wordt genoteerd. Een verkeerd toegediende eenheid is een van de ernstigste vermijdbare fouten in het "
            "ziekenhuis; de meeste fouten ontstaan bij de identificatie."
        ),
        Heading("2. Transfusiedrempels voor erytrocyten"),
        ValueTable(
            header=("Situatie", "Transfusie bij"),
            rows=(
                ("Stabiele patiënt op een verpleegafdeling", "Hb lager dan 7 g/dL"),
                ("Cardiovasculaire ziekte of acuut coronair syndroom", "Hb lager dan 8 g/dL"),
                ("Actieve bloeding met hemodynamische instabiliteit", "klinisch beleid, niet op het Hb"),
            ),
            widths=(0.60, 0.40),
        ),
        Para(
            "Geef bij een stabiele patiënt één eenheid EC per keer en bepaal daarna opnieuw het Hb. Eén eenheid "
            "EC verhoogt het Hb bij een volwassene gemiddeld met 1 g/dL. Een eenheid bevat 250 tot 300 ml."
        ),
        Heading("3. Aanvraag en bloedgroepbepaling"),
        Bullets(
            (
                "Neem het staal voor bloedgroep en antistoffenscreening af en etiketteer het aan het bed.",
                "Bij een eerste transfusie bevestigt een tweede, afzonderlijk afgenomen staal de bloedgroep.",
                "De kruisproef is 72 uur geldig.",
                "Vraag het product pas op bij de bloedbank als de patiënt en de toegangsweg klaar zijn.",
            )
        ),
        NewPage(),
        Heading("4. Controle aan het bed"),
        Para(
            "Start de transfusie binnen 30 minuten nadat het product de bloedbank heeft verlaten. Bewaar een EC "
            "nooit in de koelkast van de afdeling; breng een product dat niet gebruikt wordt meteen terug."
        ),
        Steps(
            (
                "Controleer met twee personen, van wie minstens één verpleegkundige, aan het bed van de patiënt.",
                "Vraag de patiënt actief naar naam en geboortedatum en vergelijk met het polsbandje.",
                "Vergelijk polsbandje, transfusiebon en etiket: identiteit, bloedgroep, productnummer, vervaldatum.",
                "Controleer de zak op lekkage, klonters en verkleuring.",
                "Beide personen registreren de controle in het EPD.",
            )
        ),
        Heading("5. Toediening"),
        Bullets(
            (
                "Gebruik een transfusieset met filter van 170–200 µm en vervang de set elke 12 uur.",
                "Gebruik een perifere katheter van 18G of 20G; een CVC mag ook.",
                "Geef via de transfusielijn uitsluitend NaCl 0,9%.",
                "Laat de eerste 15 minuten traag inlopen (ongeveer 60 ml/u) en blijf bij de patiënt.",
                "Een bloedopwarmer gebruik je alleen bij massale transfusie of koude-antistoffen.",
            )
        ),
        ValueTable(
            header=("Product", "Bewaring", "Inloopduur", "Uiterlijk klaar"),
            rows=(
                ("EC", "bloedbank, 2–6 °C", "1,5 tot 2 uur per eenheid", "4 uur na afgifte"),
                ("TC", "20–24 °C, geschud; nooit in de koelkast", "30 minuten", "meteen na afgifte"),
                ("Plasma", "ontdooid door de bloedbank", "30 tot 60 minuten", "4 uur na afgifte"),
            ),
            widths=(0.14, 0.36, 0.26, 0.24),
        ),
        NewPage(),
        Heading("6. Observatie"),
        ValueTable(
            header=("Moment", "Controle"),
            rows=(
                ("Vóór de start", "temperatuur, pols, bloeddruk, ademhaling en SpO2"),
                ("15 minuten na de start", "idem, en vraag naar klachten"),
                ("Einde van elke eenheid", "idem"),
                ("Tot 24 uur na de transfusie", "vraag naar koorts, kortademigheid en donkere urine"),
            ),
            widths=(0.35, 0.65),
        ),
        Heading("7. Transfusiereactie"),
        Para(
            "Denk aan een transfusiereactie bij een temperatuurstijging van 1 °C of meer, koude rillingen, jeuk of "
            "netelroos, kortademigheid, een daling van de SpO2, hypotensie, pijn in de rug of op de insteekplaats "
            "en donkere urine."
        ),
        Steps(
            (
                "Stop de transfusie onmiddellijk, maar laat de katheter liggen.",
                "Houd de ader open met NaCl 0,9% via een nieuwe infuuslijn.",
                "Controleer de vitale parameters en verwittig de arts.",
                "Controleer opnieuw de identiteit van de patiënt en het etiket van het product.",
                "Meld de reactie aan de bloedbank (hemovigilantie) en stuur de zak met de set terug.",
            )
        ),
        Para(
            "Bij alleen lichte jeuk of netelroos zonder andere symptomen kan de arts de transfusie na een "
            "antihistaminicum traag laten hervatten. Een patiënt die al eens een reactie had, krijgt een "
            "aantekening in het EPD en de bloedbank past zo nodig het product aan, bv. gewassen erytrocyten."
        ),
    ),
    facts=(
        Fact(1, "De kruisproef is 72 uur geldig.", "kruisproef 72 uur"),
        Fact(2, "Geef via de transfusielijn uitsluitend NaCl 0,9%.", "alleen NaCl 0,9% in de lijn"),
        Fact(
            3,
            "Stop de transfusie onmiddellijk, maar laat de katheter liggen.",
            "reactie: stoppen, katheter laten",
        ),
    ),
)

BLOEDTRANSFUSIE_NEONATEN = SampleDoc(
    name="bloedtransfusie-neonaten",
    code="UZV-NEO-007",
    title="Bloedtransfusie bij neonaten",
    audience=("neonaten",),
    department=("neonatologie", "bloedbank"),
    scope="Doelgroep: neonaten en zuigelingen tot 4 maanden op de afdeling neonatologie (NICU en N*); voor "
    "oudere kinderen geldt UZV-KIN-030. Dienst: neonatologie en bloedbank.",
    blocks=(
        Heading("1. Doel"),
        Para(
            "Deze procedure beschrijft de transfusie van erytrocyten, trombocyten en plasma bij neonaten en jonge "
            "zuigelingen. Het bloedvolume van een pasgeborene is ongeveer 80 tot 90 ml/kg. Elke transfusie wordt "
            "daarom in ml/kg voorgeschreven en met een spuitpomp toegediend. De ouders worden vooraf geïnformeerd "
            "door de neonatoloog. Voor volwassenen geldt UZV-BLB-002."
        ),
        Heading("2. Producten voor neonaten"),
        Bullets(
            (
                "Erytrocyten voor neonaten zijn bestraald en CMV-veilig.",
                "Het product is bij voorkeur niet ouder dan 5 dagen.",
                "De bloedbank levert het product in een spuit of in een pediatrische satellietzak; zo kunnen "
                "meerdere transfusies van één donor komen.",
                "De bloedgroep is O RhD-negatief of groepsidentiek, en compatibel met de antistoffen van de moeder.",
            )
        ),
        Para(
            "Bij de eerste transfusie test de bloedbank een staal van het kind en een staal van de moeder. "
            "Tot de leeftijd van 4 maanden is geen nieuwe kruisproef nodig. Een uitzondering is een moeder met "
            "irreguliere antistoffen: dan bepaalt de bloedbank het beleid."
        ),
        Heading("3. Transfusiedrempels voor erytrocyten"),
        ValueTable(
            header=("Postnatale leeftijd", "Met ademhalingsondersteuning", "Zonder ademhalingsondersteuning"),
            rows=(
                ("Week 1", "Hb lager dan 11 g/dL", "Hb lager dan 10 g/dL"),
                ("Week 2", "Hb lager dan 10 g/dL", "Hb lager dan 8,5 g/dL"),
                ("Week 3 en later", "Hb lager dan 8,5 g/dL", "Hb lager dan 7 g/dL"),
            ),
            widths=(0.26, 0.37, 0.37),
        ),
        Para(
            "Ademhalingsondersteuning betekent beademing, CPAP, high-flow of meer dan 25% zuurstof. Het Hb wordt "
            "bij voorkeur capillair of via de arteriële lijn bepaald, om het bloedverlies door staalname te beperken."
        ),
        NewPage(),
        Heading("4. Dosis en inloopsnelheid"),
        ValueTable(
            header=("Product", "Dosis", "Inloopduur"),
            rows=(
                ("Erytrocyten", "15 ml/kg", "3 uur"),
                ("Trombocyten", "10 ml/kg", "30 minuten"),
                ("Plasma", "15 ml/kg", "1 uur"),
            ),
            widths=(0.34, 0.33, 0.33),
        ),
        Para("Geef erytrocyten met een snelheid van 5 ml/kg per uur."),
        Para(
            "Transfundeer trombocyten bij een aantal onder 25 x 10^9/L zonder bloeding, en onder 50 x 10^9/L bij "
            "een actieve bloeding of vóór een ingreep. Plasma wordt alleen gegeven bij een bloeding met "
            "stollingsstoornis, niet om een afwijkend labo te corrigeren."
        ),
        Heading("5. Werkwijze"),
        Steps(
            (
                "Controleer met twee verpleegkundigen aan de couveuse: identificatiebandjes (pols en enkel), "
                "transfusiebon en etiket van het product.",
                "Sluit de spuit aan via een transfusiefilter van 170–200 µm en vul het filter volledig.",
                "Gebruik een aparte perifere katheter (24G) of een apart lumen van de navellijn.",
                "Geef geen medicatie of glucose via dezelfde lijn.",
                "Stel de spuitpomp in: gewicht in kg × 5 = aantal ml/u voor erytrocyten.",
                "Een spuit hangt maximaal 4 uur na afgifte aan de pomp; vraag zo nodig een tweede spuit.",
            )
        ),
        Para(
            "Een bloedopwarmer is niet nodig bij deze lage snelheid, behalve bij een wisseltransfusie. De "
            "neonatoloog beslist of de enterale voeding tijdens de transfusie wordt onderbroken."
        ),
        NewPage(),
        Heading("6. Bewaking"),
        Para(
            "Monitor hartfrequentie, ademhaling en SpO2 continu. Noteer deze waarden, de temperatuur en de bloeddruk "
            "vóór de start, na 15 minuten, daarna elk uur en aan het einde van de transfusie."
        ),
        Heading("7. Reactie tijdens de transfusie"),
        Para(
            "Transfusiereacties zijn bij neonaten zeldzaam en weinig specifiek: tachycardie, apneu, desaturatie, "
            "hypotensie, temperatuurschommelingen of huiduitslag."
        ),
        Steps(
            (
                "Stop de spuitpomp en koppel de spuit los.",
                "Verwittig onmiddellijk de neonatoloog.",
                "Meld de reactie aan de bloedbank en bewaar spuit en set voor onderzoek.",
            )
        ),
        Heading("8. Na de transfusie"),
        Para(
            "Als een glucose-infuus tijdens de transfusie werd onderbroken, meet je de glycemie 1 uur na de start "
            "van de transfusie. Een Hb-controle na de transfusie gebeurt alleen op voorschrift, ten vroegste "
            "6 uur na het einde. Registreer het productnummer en het toegediende volume in het EPD."
        ),
    ),
    facts=(
        Fact(1, "Erytrocyten voor neonaten zijn bestraald en CMV-veilig.", "bestraald en CMV-veilig"),
        Fact(2, "Geef erytrocyten met een snelheid van 5 ml/kg per uur.", "EC 5 ml/kg/u"),
        Fact(3, "Stop de spuitpomp en koppel de spuit los.", "reactie: spuitpomp stoppen"),
    ),
)

VERBLIJFSKATHETER_MAN = SampleDoc(
    name="verblijfskatheter-man",
    code="UZV-URO-011",
    title="Verblijfskatheter plaatsen bij de man",
    audience=("volwassenen",),
    department=("urologie", "verpleging"),
    scope="Doelgroep: volwassen mannelijke patiënten; voor vrouwen geldt UZV-URO-012. "
    "Dienst: urologie en verpleging.",
    blocks=(
        Heading("1. Doel en indicaties"),
        Para(
            "Een verblijfskatheter (transurethrale blaaskatheter) wordt alleen geplaatst op voorschrift van een "
            "arts en bij een duidelijke indicatie. Elke katheterdag verhoogt het risico op een katheter-"
            "geassocieerde urineweginfectie (CAUTI). Geldige indicaties zijn:"
        ),
        Bullets(
            (
                "acute urineretentie die met een eenmalige katheterisatie niet oplost;",
                "nauwkeurige meting van de diurese bij een kritiek zieke patiënt;",
                "perioperatief bij urologische of langdurige ingrepen;",
                "comfort in de palliatieve fase, op vraag van de patiënt.",
            )
        ),
        Para("Incontinentie alleen is geen indicatie voor een verblijfskatheter."),
        Heading("2. Materiaal"),
        Bullets(
            (
                "steriele katheterset met doeken, gaasjes, steriele handschoenen en nierbekken;",
                "siliconen katheter CH 14 of CH 16 met een ballon van 10 ml;",
                "spuit met 10 ml steriel water;",
                "glijmiddel met lidocaïne in een spuit van 11 ml;",
                "gesloten urineopvangsysteem met aftappunt, en fixatiepleister.",
            )
        ),
        Para(
            "Kies de kleinste maat die goed draineert. Bij bloedstolsels of na een prostaatingreep plaatst de "
            "uroloog een driewegkatheter CH 18 tot CH 22 voor blaasspoeling. Vul de ballon uitsluitend met steriel "
            "water: NaCl 0,9% kan kristalliseren en lucht laat de ballon drijven."
        ),
        NewPage(),
        Heading("3. Werkwijze"),
        Steps(
            (
                "Informeer de patiënt, vraag toestemming en zorg voor privacy.",
                "Leg de patiënt in rugligging met licht gespreide benen.",
                "Voer handhygiëne uit, open de steriele set en trek steriele handschoenen aan.",
                "Schuif de voorhuid terug en reinig glans en meatus met steriel water, van de meatus naar buiten.",
                "Spuit langzaam 11 ml glijmiddel met lidocaïne in de urethra en wacht 5 minuten.",
                "Houd de penis loodrecht op het lichaam en schuif de katheter zonder kracht op.",
                "Breng bij weerstand ter hoogte van de prostaat de penis naar beneden, richting de voeten, en vraag "
                "de patiënt diep te zuchten.",
                "Schuif door tot er urine vloeit en daarna nog tot aan de splitsing van de katheter.",
                "Vul de ballon met 10 ml steriel water en trek de katheter terug tot je weerstand voelt.",
                "Plaats de voorhuid altijd terug over de glans.",
                "Fixeer de katheter op de buik of het bovenbeen en sluit het opvangsysteem aan.",
            )
        ),
        Para(
            "Een voorhuid die teruggeschoven blijft, geeft binnen enkele uren een pijnlijke zwelling "
            "(parafimose). Vul de ballon nooit als er geen urine vloeit: de ballon kan dan in de urethra liggen."
        ),
        Heading("4. Moeilijke katheterisatie"),
        Para(
            "Forceer nooit. Stop na 2 mislukte pogingen en verwittig de uroloog. Een Tiemann-katheter (met gebogen "
            "tip) wordt alleen geplaatst door de uroloog of door een daartoe opgeleide verpleegkundige. Bloed aan "
            "de meatus na een poging meld je altijd aan de arts."
        ),
        NewPage(),
        Heading("5. Urineretentie"),
        Para(
            "Laat de blaas bij een retentie volledig leeglopen; de katheter afklemmen is niet nodig. Noteer het "
            "volume van de eerste drainage in het EPD en verwittig de arts bij meer dan 1000 ml, bij hematurie "
            "of bij een bloeddrukdaling."
        ),
        Heading("6. Zorg voor de verblijfskatheter"),
        Bullets(
            (
                "Houd het systeem gesloten: koppel de zak niet los om hem te ledigen of om een staal te nemen.",
                "Hang de zak altijd onder blaashoogte, nooit op de grond.",
                "Voorkom knikken in de slang: terugvloeiende urine (reflux) verhoogt het infectierisico.",
                "Ledig de zak als hij voor twee derde vol is, met een eigen opvangbeker per patiënt.",
                "Reinig de meatus dagelijks met water en zeep; gebruik geen ontsmettingsmiddel.",
                "Neem een urinestaal af via het aftappunt, na ontsmetting met alcohol 70%.",
                "Moedig een vochtinname van 1,5 tot 2 liter per dag aan, tenzij er een vochtbeperking is.",
            )
        ),
        ValueTable(
            header=("Type katheter", "Maximale verblijfsduur"),
            rows=(
                ("Latex met siliconencoating", "2 weken"),
                ("Silicone", "12 weken"),
            ),
            widths=(0.50, 0.50),
        ),
        Heading("7. Evaluatie en verwijderen"),
        Para(
            "Beoordeel elke dag of de katheter nog nodig is en noteer dit in het EPD. Ledig bij het verwijderen de "
            "ballon volledig met een spuit en trek de katheter in één beweging terug; knip hem nooit door. De patiënt "
            "moet binnen 6 uur plassen. "
            "Scan anders het blaasvolume met de bladderscan en verwittig de arts bij meer dan 400 ml."
        ),
    ),
    facts=(
        Fact(
            1,
            "Incontinentie alleen is geen indicatie voor een verblijfskatheter.",
            "incontinentie geen indicatie",
        ),
        Fact(2, "Plaats de voorhuid altijd terug over de glans.", "voorhuid terugplaatsen"),
        Fact(3, "Hang de zak altijd onder blaashoogte, nooit op de grond.", "zak onder blaashoogte"),
    ),
)

VERBLIJFSKATHETER_VROUW = SampleDoc(
    name="verblijfskatheter-vrouw",
    code="UZV-URO-012",
    title="Verblijfskatheter plaatsen bij de vrouw",
    audience=("volwassenen",),
    department=("urologie", "verpleging"),
    scope="Doelgroep: volwassen vrouwelijke patiënten; voor mannen geldt UZV-URO-011. "
    "Dienst: urologie en verpleging.",
    blocks=(
        Heading("1. Doel en indicaties"),
        Para(
            "Een verblijfskatheter (transurethrale blaaskatheter) wordt alleen geplaatst op voorschrift van een "
            "arts en bij een duidelijke indicatie: acute urineretentie, nauwkeurige meting van de diurese, "
            "perioperatief bij langdurige ingrepen, of comfort in de palliatieve fase. Elke katheterdag verhoogt "
            "het risico op een urineweginfectie (CAUTI). Overweeg bij een retentie eerst een eenmalige "
            "katheterisatie."
        ),
        Heading("2. Materiaal"),
        Bullets(
            (
                "steriele katheterset met doeken, gaasjes, steriele handschoenen en nierbekken;",
                "siliconen katheter CH 12 of CH 14 met een ballon van 10 ml;",
                "een tweede steriele katheter binnen handbereik;",
                "spuit met 10 ml steriel water;",
                "glijmiddel met lidocaïne in een spuit van 6 ml;",
                "gesloten urineopvangsysteem met aftappunt, en fixatiepleister.",
            )
        ),
        Para(
            "Vul de ballon uitsluitend met steriel water. NaCl 0,9% kan kristalliseren, waardoor de ballon zich "
            "later niet meer laat ledigen."
        ),
        Heading("3. Houding"),
        Para(
            "Leg de patiënte in rugligging met gebogen knieën en gespreide benen. Kan de patiënte de benen niet "
            "spreiden, bv. na een heupoperatie of bij contracturen, gebruik dan de zijligging met het bovenste "
            "been opgetrokken. Zorg voor goed licht: een hoofdlamp of extra lamp maakt de meatus beter zichtbaar."
        ),
        NewPage(),
        Heading("4. Werkwijze"),
        Steps(
            (
                "Informeer de patiënte, vraag toestemming en zorg voor privacy.",
                "Voer handhygiëne uit, open de steriele set en trek steriele handschoenen aan.",
                "Spreid de labia met duim en wijsvinger van de niet-dominante hand en houd ze gespreid tot de "
                "katheter ingebracht is.",
                "Reinig met steriel water van voor naar achter, met een nieuw gaasje voor elke veeg: eerst de grote "
                "schaamlippen, dan de kleine, als laatste de meatus.",
                "Breng 6 ml glijmiddel met lidocaïne in de urethra en wacht 3 minuten.",
                "Schuif de katheter 5 tot 7 cm op tot er urine vloeit, en daarna nog 2 cm verder.",
                "Vul de ballon met 10 ml steriel water en trek de katheter terug tot je weerstand voelt.",
                "Fixeer de katheter aan de binnenkant van het bovenbeen en sluit het opvangsysteem aan.",
            )
        ),
        Para(
            "Komt de katheter per vergissing in de vagina, laat hem dan liggen als herkenningspunt. Neem een nieuwe "
            "steriele katheter en breng die in boven de eerste. Verwijder de eerste katheter daarna."
        ),
        Para(
            "Vraag bij een moeilijk zichtbare meatus, bv. bij oudere vrouwen of obesitas, hulp van een ervaren "
            "collega. Vul de ballon nooit als er geen urine vloeit."
        ),
        NewPage(),
        Heading("5. Zorg voor de verblijfskatheter"),
        Bullets(
            (
                "Houd het systeem gesloten: koppel de zak niet los om hem te ledigen of om een staal te nemen.",
                "Hang de zak altijd onder blaashoogte, nooit op de grond.",
                "Ledig de zak als hij voor twee derde vol is, met een eigen opvangbeker per patiënte.",
                "Verzorg de genitale streek dagelijks met water en zeep, van voor naar achter.",
                "Neem een urinestaal af via het aftappunt, na ontsmetting met alcohol 70%.",
                "Moedig een vochtinname van 1,5 tot 2 liter per dag aan, tenzij er een vochtbeperking is.",
            )
        ),
        ValueTable(
            header=("Type katheter", "Maximale verblijfsduur"),
            rows=(
                ("Latex met siliconencoating", "2 weken"),
                ("Silicone", "12 weken"),
            ),
            widths=(0.50, 0.50),
        ),
        Heading("6. Evaluatie en verwijderen"),
        Para(
            "Beoordeel elke dag of de katheter nog nodig is en noteer dit in het EPD. Ledig bij het verwijderen de "
            "ballon volledig met een spuit en trek de katheter in één beweging terug; knip hem nooit door. De "
            "patiënte moet binnen 6 uur plassen. "
            "Scan anders het blaasvolume met de bladderscan en verwittig de arts bij meer dan 400 ml. Een "
            "efficiënte katheterzorg is een taak van het hele team, ook 's nachts."
        ),
    ),
    facts=(
        Fact(1, "Vul de ballon uitsluitend met steriel water.", "ballon met steriel water"),
        Fact(
            2,
            "Schuif de katheter 5 tot 7 cm op tot er urine vloeit, en daarna nog 2 cm verder.",
            "5–7 cm opschuiven",
        ),
        Fact(
            3,
            "Ledig de zak als hij voor twee derde vol is, met een eigen opvangbeker per patiënte.",
            "zak ledigen bij 2/3",
        ),
    ),
)

CVC_VERZORGING = SampleDoc(
    name="cvc-verzorging",
    code="UZV-INF-017",
    title="Verzorging centraal veneuze katheter (CVC)",
    audience=("volwassenen",),
    department=("intensieve zorg", "infectiepreventie"),
    scope="Doelgroep: volwassen patiënten met een niet-getunnelde CVC in de v. jugularis interna, v. subclavia "
    "of v. femoralis; voor een PICC-lijn geldt UZV-INF-018. Dienst: intensieve zorg en infectiepreventie.",
    blocks=(
        Heading("1. Doel"),
        Para(
            "Een CVC-gerelateerde bloedstroominfectie (CLABSI) is een ernstige en grotendeels vermijdbare "
            "complicatie. Deze procedure beschrijft de dagelijkse zorg, de verbandwissel, het manipuleren van "
            "lijnen en connectoren, het spoelen en het verwijderen van een niet-getunnelde CVC. Het plaatsen "
            "(maximale steriele voorzorgen, echogeleiding) valt onder de procedure van de anesthesie. De patiënt "
            "wordt geïnformeerd over de tekenen van een infectie en meldt pijn of vocht aan de insteekplaats."
        ),
        Heading("2. Dagelijkse zorg"),
        Bullets(
            (
                "Beoordeel elke dag of de CVC nog nodig is.",
                "Inspecteer de insteekplaats minstens eenmaal per dienst door het verband: roodheid, zwelling, "
                "pus, lekkage of pijn.",
                "Noteer bij elke verbandwissel de cm-markering ter hoogte van de huid.",
                "Was patiënten op intensieve zorg dagelijks met chloorhexidinedoekjes 2%.",
                "Registreer elke manipulatie en elke verbandwissel in het EPD; het team infectiepreventie en de "
                "hoofdverpleegkundige volgen het aantal CLABSI's per 1000 katheterdagen op.",
            )
        ),
        Heading("3. Verband"),
        ValueTable(
            header=("Type verband", "Vervangen"),
            rows=(
                ("Transparant semipermeabel verband met chloorhexidinegelpad", "elke 7 dagen"),
                ("Gaasverband (bij bloeding, zweten of lekkage)", "elke 2 dagen"),
                ("Verband dat loskomt, nat of zichtbaar vuil is", "onmiddellijk"),
            ),
            widths=(0.70, 0.30),
        ),
        Para(
            "Een gaasje onder een transparant verband telt als gaasverband. Kies opnieuw een transparant verband "
            "zodra de insteekplaats droog is."
        ),
        NewPage(),
        Heading("4. Verbandwissel"),
        Steps(
            (
                "Voer handhygiëne uit en zet een masker op; de patiënt draait het hoofd weg van de insteekplaats.",
                "Trek niet-steriele handschoenen aan en verwijder het oude verband naar de insteekplaats toe.",
                "Voer opnieuw handhygiëne uit en trek steriele handschoenen aan.",
                "Ontsmet de huid met chloorhexidine 2% in alcohol 70%, wrijvend, gedurende 30 seconden.",
                "Laat de huid volledig drogen; blaas of dep niet.",
                "Breng het chloorhexidinegelpad aan en kleef het nieuwe verband zonder spanning.",
                "Noteer de datum op het verband en registreer de verbandwissel in het EPD.",
            )
        ),
        Para("Gebruik bij een allergie voor chloorhexidine povidonjood 10% in alcohol."),
        Heading("5. Lijnen en connectoren"),
        Bullets(
            (
                "Ontsmet de naaldvrije connector vóór elke manipulatie 15 seconden met alcohol 70% en laat drogen.",
                "Vervang infuuslijnen zonder lipiden of bloedproducten elke 96 uur.",
                "Vervang lijnen voor lipiden of parenterale voeding elke 24 uur, voor propofol elke 12 uur.",
                "Vervang de naaldvrije connectoren samen met de infuuslijnen.",
                "Reserveer één lumen voor parenterale voeding en label elk lumen.",
            )
        ),
        Heading("6. Spoelen"),
        Para(
            "Spoel elk lumen vóór en na elke medicatie pulserend (push-pause, 'flushen') met 10 ml NaCl 0,9%. Gebruik geen "
            "spuit kleiner dan 10 ml: een kleine spuit geeft een te hoge druk. Sluit af met positieve druk. Spoel "
            "een lumen dat niet gebruikt wordt elke 8 uur met 10 ml NaCl 0,9%. Forceer nooit bij weerstand."
        ),
        NewPage(),
        Heading("7. Bloedafname via de CVC"),
        Steps(
            (
                "Stop alle infusies op het lumen gedurende 1 minuut.",
                "Zuig 5 ml bloed op en gooi het weg (niet bij bloedkweken).",
                "Neem de stalen af met het vacuümsysteem.",
                "Spoel na met 20 ml NaCl 0,9% en herstart de infusies.",
            )
        ),
        Heading("8. Vermoeden van infectie"),
        Para(
            "Neem bij koorts zonder andere verklaring 2 sets bloedkweken: één via de CVC en één via een perifere "
            "venapunctie, met hetzelfde volume. De arts beslist of de CVC verwijderd wordt. Verwittig de arts "
            "onmiddellijk bij pus op de insteekplaats."
        ),
        Heading("9. Verwijderen"),
        Steps(
            (
                "Leg de patiënt plat of in lichte Trendelenburg; bij een femorale CVC volstaat rugligging.",
                "Stop alle infusies en verwijder het verband en de hechtingen.",
                "Vraag de patiënt de adem vast te houden en trek de katheter in één vloeiende beweging terug.",
                "Druk af tot de bloeding stopt, minstens 5 minuten.",
                "Breng een luchtdicht verband aan en laat het 24 uur zitten.",
                "Laat de patiënt nog 30 minuten liggen.",
            )
        ),
        Para(
            "Controleer of de katheter volledig is. Stuur de tip alleen voor kweek op bij een vermoeden van "
            "infectie. Een luchtembolie (plotse dyspneu, daling van de SpO2) is een noodsituatie: leg de patiënt "
            "op de linkerzij met het hoofd lager en geef zuurstof."
        ),
    ),
    facts=(
        Fact(1, "Beoordeel elke dag of de CVC nog nodig is.", "CVC dagelijks evalueren"),
        Fact(2, "Vervang infuuslijnen zonder lipiden of bloedproducten elke 96 uur.", "lijnen elke 96 uur"),
        Fact(3, "Breng een luchtdicht verband aan en laat het 24 uur zitten.", "luchtdicht verband 24 uur"),
    ),
)

PICC_VERZORGING = SampleDoc(
    name="picc-verzorging",
    code="UZV-INF-018",
    title="Verzorging PICC-lijn",
    audience=("volwassenen",),
    department=("verpleging", "infectiepreventie"),
    scope="Doelgroep: volwassen patiënten met een perifeer ingebrachte centrale katheter (PICC), op de "
    "verpleegafdeling en bij ontslag met thuisverpleging. Dienst: verpleging en infectiepreventie.",
    blocks=(
        Heading("1. Doel"),
        Para(
            "Een PICC-lijn is een centrale katheter die via een ader van de bovenarm (v. basilica of v. brachialis) "
            "wordt ingebracht tot net boven de rechterboezem. Hij kan weken tot maanden blijven zitten, bv. voor "
            "langdurige antibiotica of chemotherapie. Deze procedure beschrijft de verzorging; bij vragen helpt de "
            "infectiepreventieverpleegkundige. Voor een niet-getunnelde CVC geldt UZV-INF-017."
        ),
        Heading("2. Observatie"),
        Bullets(
            (
                "Meet de armomtrek 10 cm boven de insteekplaats bij plaatsing en bij elke verbandwissel.",
                "Verwittig de arts bij een toename van de armomtrek met 3 cm of meer (mogelijke trombose).",
                "Noteer bij elke verbandwissel de externe lengte, van de insteekplaats tot de aansluiting.",
                "Is de externe lengte meer dan 2 cm langer dan bij plaatsing, gebruik de PICC dan niet en "
                "verwittig de arts.",
                "Meet geen bloeddruk en prik geen bloed aan de arm met de PICC.",
            )
        ),
        Heading("3. Verband en bevestiging"),
        ValueTable(
            header=("Wat", "Vervangen"),
            rows=(
                ("Gaasje onder transparant verband, na plaatsing", "na 24 uur"),
                ("Transparant verband", "elke 7 dagen"),
                ("Hechtingsloos bevestigingssysteem", "elke 7 dagen, samen met het verband"),
                ("Naaldvrije connector", "elke 7 dagen, samen met het verband"),
                ("Verband dat loskomt, nat of vuil is", "onmiddellijk"),
            ),
            widths=(0.55, 0.45),
        ),
        Para(
            "De eerste verbandwissel gebeurt 24 uur na plaatsing. Het gaasje tegen nabloeden wordt dan "
            "verwijderd en vervangen door een transparant verband."
        ),
        NewPage(),
        Heading("4. Verbandwissel"),
        Steps(
            (
                "Voer handhygiëne uit en trek niet-steriele handschoenen aan.",
                "Trek het verband los van de vingers naar de schouder toe, zodat de katheter niet naar buiten "
                "komt; houd de katheter met één vinger op zijn plaats.",
                "Verwijder het bevestigingssysteem en meet de externe lengte.",
                "Trek steriele handschoenen aan en ontsmet de huid met chloorhexidine 2% in alcohol 70%.",
                "Laat volledig drogen en plaats een nieuw bevestigingssysteem.",
                "Leg de katheter in een lus op de huid en kleef het transparante verband zonder spanning.",
                "Meet de armomtrek en noteer lengte, omtrek en datum in het EPD.",
            )
        ),
        Heading("5. Spoelen en afsluiten"),
        Para(
            "Spoel pulserend ('flushen') met 10 ml NaCl 0,9% vóór en na elke medicatie. Spoel na een bloedafname, bloedproducten "
            "of parenterale voeding met 20 ml NaCl 0,9%. Sluit af met positieve druk."
        ),
        Bullets(
            (
                "Spoel een ongebruikte PICC minstens eenmaal per week.",
                "Gebruik geen spuit kleiner dan 10 ml.",
                "Forceer nooit bij weerstand. Een occlusie wordt alleen op voorschrift behandeld, met alteplase "
                "2 mg in 2 ml en een inwerktijd van 2 uur.",
                "Gebruik de PICC alleen voor contrast met een drukspuit als er 'power injectable' op staat, "
                "tot maximaal 5 ml per seconde.",
            )
        ),
        NewPage(),
        Heading("6. Problemen"),
        ValueTable(
            header=("Probleem", "Mogelijke oorzaak", "Actie"),
            rows=(
                (
                    "Zwelling of pijn in de arm",
                    "trombose",
                    "verwittig de arts; echo-doppler; PICC laten zitten",
                ),
                ("Koorts of rillingen", "infectie", "bloedkweken via de PICC en perifeer"),
                ("Lekkage bij de insteekplaats", "breuk of occlusie", "niet gebruiken, verwittig de arts"),
                ("Katheter verder naar buiten", "migratie", "nooit terugduwen, verwittig de arts"),
            ),
            widths=(0.30, 0.22, 0.48),
        ),
        Heading("7. Ontslag met een PICC"),
        Para(
            "De patiënt krijgt een PICC-paspoort mee met het type, de lengte, de datum van plaatsing en de laatste "
            "armomtrek. De thuisverpleegkundige volgt dezelfde procedure. Douchen mag met een waterdichte hoes. "
            "Zwemmen en baden zijn niet toegestaan met een PICC. Zware lasten tillen of sporten met de arm wordt "
            "afgeraden. De patiënt wordt geïnformeerd over alarmsignalen: koorts, zwelling of pijn in de arm."
        ),
        Heading("8. Verwijderen"),
        Steps(
            (
                "Leg de patiënt plat met de arm gestrekt naast het lichaam.",
                "Verwijder verband en bevestigingssysteem.",
                "Trek de katheter langzaam en gelijkmatig terug, telkens 2 à 3 cm.",
                "Stop bij weerstand, leg 20 minuten een warm kompres op de arm en probeer dan opnieuw.",
                "Druk af tot de bloeding stopt en breng een luchtdicht verband aan voor 24 uur.",
                "Meet de lengte van de verwijderde katheter en vergelijk met de lengte bij plaatsing.",
            )
        ),
    ),
    facts=(
        Fact(
            1, "Meet geen bloeddruk en prik geen bloed aan de arm met de PICC.", "geen bloeddruk aan PICC-arm"
        ),
        Fact(
            2, "Spoel een ongebruikte PICC minstens eenmaal per week.", "ongebruikte PICC wekelijks spoelen"
        ),
        Fact(3, "Zwemmen en baden zijn niet toegestaan met een PICC.", "niet zwemmen met PICC"),
    ),
)

VALPREVENTIE = SampleDoc(
    name="valpreventie",
    code="UZV-VPL-044",
    title="Valpreventie bij gehospitaliseerde volwassenen",
    audience=("volwassenen",),
    department=("verpleging", "geriatrie"),
    scope="Doelgroep: volwassen patiënten op alle verpleegafdelingen, met bijzondere aandacht voor patiënten "
    "van 65 jaar en ouder. Dienst: verpleging en geriatrie.",
    blocks=(
        Heading("1. Doel"),
        Para(
            "Een val is een van de meest gemelde incidenten in het ziekenhuis. Een val kan leiden tot een "
            "heupfractuur, hoofdletsel, een langere opname en angst om opnieuw te vallen. Deze procedure "
            "beschrijft de screening op valrisico, de maatregelen om vallen te voorkomen en de zorg na een val."
        ),
        Heading("2. Screening bij opname"),
        Para(
            "Screen elke patiënt van 65 jaar of ouder binnen 24 uur na opname op valrisico. Herhaal de "
            "screening na een val, na een ingreep en bij elke verandering in de toestand. Stel de volgende vragen:"
        ),
        Bullets(
            (
                "Is de patiënt in de voorbije 12 maanden gevallen?",
                "Heeft de patiënt angst om te vallen, of gebruikt hij een loophulpmiddel?",
                "Is de patiënt verward, onrustig of delirant?",
                "Neemt de patiënt slaapmiddelen, antidepressiva, antipsychotica, diuretica of bloeddrukverlagers?",
                "Heeft de patiënt nycturie, aandrang of incontinentie?",
                "Heeft de patiënt een verminderd zicht?",
            )
        ),
        Para("Eén positief antwoord betekent een verhoogd valrisico."),
        Heading("3. Basismaatregelen voor alle patiënten"),
        Bullets(
            (
                "Zet het bed in de laagste stand, met de remmen vergrendeld.",
                "Leg de beloproep, de bril en persoonlijke spullen binnen handbereik.",
                "Zorg voor goede verlichting en laat 's nachts een nachtlampje branden.",
                "Laat de patiënt stevige, gesloten schoenen of antislipsokken dragen.",
                "Houd de weg naar het toilet vrij van obstakels.",
            )
        ),
        NewPage(),
        Heading("4. Bijkomende maatregelen bij verhoogd valrisico"),
        Bullets(
            (
                "Markeer het valrisico in het EPD en op het bord in de kamer.",
                "Bied toiletbegeleiding aan elke 2 uur overdag en elke 3 uur 's nachts.",
                "Gebruik een bedalarm of sensormat bij een verwarde patiënt.",
                "Meet de orthostatische bloeddruk (zie punt 5).",
                "Vraag de apotheker of de geriater om de medicatie na te kijken.",
                "Mobiliseer zo vroeg mogelijk met de kinesitherapeut: bedrust verhoogt het valrisico.",
            )
        ),
        Para("Bedhekken zijn geen valpreventie."),
        Para(
            "Een verwarde patiënt klimt over de bedhekken en valt dan van een grotere hoogte. Bedhekken, een "
            "Zweedse band en andere fixatie zijn vrijheidsbeperkende maatregelen: alleen op voorschrift van een "
            "arts, na overleg met de patiënt of de familie, en met een evaluatie elke 24 uur."
        ),
        Heading("5. Orthostatische bloeddruk meten"),
        Steps(
            (
                "Laat de patiënt 5 minuten plat liggen en meet bloeddruk en pols.",
                "Laat de patiënt rechtstaan, met hulp.",
                "Meet bloeddruk en pols opnieuw na 1 minuut en na 3 minuten staan.",
            )
        ),
        Para(
            "Er is orthostatische hypotensie bij een daling van de systolische bloeddruk met 20 mmHg of meer, of "
            "van de diastolische met 10 mmHg of meer. Stop de meting en laat de patiënt zitten als hij duizelig "
            "wordt of dreigt flauw te vallen. Meld orthostatische hypotensie aan de arts."
        ),
        NewPage(),
        Heading("6. Na een val"),
        Steps(
            (
                "Blijf bij de patiënt, roep hulp en til de patiënt niet meteen op.",
                "Controleer bewustzijn, ademhaling en pols.",
                "Zoek letsels: hoofd, heup (een verkort en naar buiten gedraaid been), polsen en schouders.",
                "Verwittig de arts; de arts onderzoekt de patiënt.",
                "Gebruik een tillift als de patiënt niet zelf kan rechtkomen.",
                "Meld de val binnen 24 uur in het meldingssysteem voor incidenten.",
            )
        ),
        Para(
            "Voer een neurologische controle uit (bewustzijn met de GCS, pupillen, kracht in armen en benen) bij "
            "hoofdletsel, bij een val zonder getuigen en bij een patiënt met antistolling:"
        ),
        ValueTable(
            header=("Tijd na de val", "Neurologische controle"),
            rows=(
                ("0 tot 4 uur", "elk uur"),
                ("4 tot 24 uur", "elke 4 uur"),
            ),
            widths=(0.40, 0.60),
        ),
        Para("Verwittig de arts meteen bij een daling van de GCS met 2 punten of meer, braken of hoofdpijn."),
        Heading("7. Informeren en opvolgen"),
        Para(
            "Betrek de patiënt en de familie: leg het valrisico en de maatregelen uit en geef de folder "
            "'Vallen voorkomen' mee. De patiënt en de familie worden geïnformeerd over hoe ze zelf kunnen "
            "helpen. Het team bespreekt elke val in het teamoverleg; de hoofdverpleegkundige volgt het aantal "
            "vallen per 1000 ligdagen op."
        ),
    ),
    facts=(
        Fact(1, "Eén positief antwoord betekent een verhoogd valrisico.", "1 ja = verhoogd valrisico"),
        Fact(2, "Bedhekken zijn geen valpreventie.", "bedhekken geen valpreventie"),
        Fact(
            3, "Meld de val binnen 24 uur in het meldingssysteem voor incidenten.", "val melden binnen 24 uur"
        ),
    ),
)

PIJNMETING = SampleDoc(
    name="pijnmeting",
    code="UZV-PIJN-003",
    title="Pijnmeting met NRS en VAS",
    audience=("volwassenen",),
    department=("pijnteam", "verpleging"),
    scope="Doelgroep: volwassen patiënten op alle verpleegafdelingen; voor kinderen gebruikt de kinderafdeling "
    "eigen schalen. Dienst: pijnteam en verpleging.",
    blocks=(
        Heading("1. Doel"),
        Para(
            "Pijn wordt in UZ Voorbeeld beschouwd als het vijfde vitale teken. Alleen wie pijn op een vaste manier "
            "meet, kan de pijnstilling gericht aanpassen en het effect ervan evalueren. Deze procedure beschrijft "
            "welke schaal je gebruikt, wanneer je meet en welke actie volgt op een score."
        ),
        Heading("2. Schalen"),
        Bullets(
            (
                "NRS (numerieke schaal): de patiënt geeft zijn pijn een cijfer van 0 (geen pijn) tot 10 (ergst "
                "denkbare pijn). De NRS is de eerste keuze.",
                "VAS (visueel analoge schaal): een lijn van 100 mm. De patiënt schuift de cursor; je leest de "
                "afstand in mm af op de achterkant.",
                "VRS (verbale schaal): geen, lichte, matige of ernstige pijn, voor wie geen cijfer kan geven.",
            )
        ),
        Para("Gebruik bij dezelfde patiënt altijd dezelfde schaal."),
        Para("Vraag telkens naar de pijn in rust en bij beweging, bv. bij hoesten, draaien of mobiliseren."),
        ValueTable(
            header=("NRS", "VAS", "Pijn", "Actie"),
            rows=(
                ("0", "0 mm", "geen", "geen"),
                ("1–3", "1–39 mm", "licht", "aanvaardbaar; niet-medicamenteuze maatregelen, vast schema"),
                ("4–6", "40–69 mm", "matig", "pijnstilling volgens voorschrift, daarna herevalueren"),
                ("7–10", "70–100 mm", "ernstig", "pijnstilling volgens voorschrift en verwittig de arts"),
            ),
            widths=(0.10, 0.16, 0.14, 0.60),
        ),
        Para(
            "Vanaf NRS 4 onderneem je altijd actie. Op de VAS komt dat overeen met 40 mm of meer. Een lagere score "
            "die de patiënt zelf onaanvaardbaar vindt, bespreek je met de arts."
        ),
        NewPage(),
        Heading("3. Wanneer meten"),
        Bullets(
            (
                "bij opname en daarna minstens eenmaal per dienst bij elke patiënt;",
                "na een ingreep: bij aankomst op de afdeling en daarna elke 4 uur gedurende het eerste etmaal;",
                "bij nieuwe pijn of een plotse toename van de pijn;",
                "na pijnstilling: 30 minuten na een i.v. gift en 60 minuten na een orale gift.",
            )
        ),
        Heading("4. Werkwijze"),
        Steps(
            (
                "Leg de schaal uit bij opname, op een rustig moment.",
                "Vraag: 'Welk cijfer van 0 tot 10 geeft u aan uw pijn op dit moment?'",
                "Vraag naar de pijn in rust en bij beweging en noteer beide scores.",
                "Noteer de score, de plaats en de aard van de pijn in het EPD.",
                "Onderneem actie volgens de tabel en herevalueer.",
            )
        ),
        Para(
            "De patiënt bepaalt de score, niet de zorgverlener. Ook een patiënt die slaapt of er niet pijnlijk "
            "uitziet, kan veel pijn hebben; wek een slapende patiënt niet alleen om de pijn te meten."
        ),
        Heading("5. Sedatie en ademhaling bij opioïden"),
        Para(
            "Beoordeel bij pijnstilling met opioïden samen met de pijnscore ook de sedatiescore en de "
            "ademhalingsfrequentie."
        ),
        ValueTable(
            header=("Sedatiescore", "Omschrijving"),
            rows=(
                ("0", "wakker en alert"),
                ("1", "soms slaperig, gemakkelijk wekbaar"),
                ("2", "vaak slaperig, valt in slaap tijdens een gesprek"),
                ("3", "moeilijk wekbaar"),
            ),
            widths=(0.25, 0.75),
        ),
        Para(
            "Geef geen extra opioïd bij een sedatiescore van 2 of meer of bij een ademhalingsfrequentie onder "
            "10 per minuut, en verwittig de arts. Bij score 3 blijf je bij de patiënt."
        ),
        NewPage(),
        Heading("6. Patiënten die zelf niet kunnen scoren"),
        Bullets(
            (
                "Patiënten met dementie: PAINAD-schaal (0–10) met vijf onderdelen: ademhaling, geluiden, "
                "gelaatsuitdrukking, lichaamstaal en troostbaarheid. Een score van 2 of meer wijst op pijn.",
                "Beademde patiënten op intensieve zorg: BPS (3–12); actie vanaf 6.",
                "Patiënten met een taalbarrière: gebruik de NRS met cijfers op papier of een tolk; kies één schaal.",
            )
        ),
        Heading("7. Niet-medicamenteuze maatregelen"),
        Bullets(
            (
                "een comfortabele houding en ondersteuning met kussens;",
                "koude of warmte, op voorschrift;",
                "uitleg, geruststelling en afleiding, bv. muziek;",
                "ontspannings- en ademhalingsoefeningen.",
            )
        ),
        Heading("8. Pijnteam"),
        Para(
            "Verwittig het pijnteam bij NRS 7 of hoger ondanks twee aanpassingen van de pijnstilling, of bij pijn "
            "die langer dan 24 uur boven NRS 4 blijft. Het pijnteam is overdag bereikbaar op het interne nummer "
            "4321; 's nachts bel je de arts van wacht. Een efficiënt pijnbeleid begint bij een goede meting."
        ),
    ),
    facts=(
        Fact(1, "Gebruik bij dezelfde patiënt altijd dezelfde schaal.", "altijd dezelfde schaal"),
        Fact(2, "De patiënt bepaalt de score, niet de zorgverlener.", "patiënt bepaalt de score"),
        Fact(3, "Beademde patiënten op intensieve zorg: BPS (3–12); actie vanaf 6.", "BPS actie vanaf 6"),
    ),
)

SONDEVOEDING = SampleDoc(
    name="sondevoeding",
    code="UZV-VPL-052",
    title="Sondevoeding via neus-maagsonde",
    audience=("volwassenen",),
    department=("diëtetiek", "verpleging"),
    scope="Doelgroep: volwassen patiënten die sondevoeding krijgen via een neus-maagsonde. "
    "Dienst: diëtetiek en verpleging.",
    blocks=(
        Heading("1. Doel en toepassingsgebied"),
        Para(
            "Deze procedure beschrijft het plaatsen van een neus-maagsonde voor voeding bij volwassenen, de "
            "controle van de ligging, het toedienen van sondevoeding en medicatie en de verzorging. De diëtist "
            "bepaalt het type voeding en het streefdebiet. Een dikke sonde voor maagdrainage (CH 14 tot 18) valt "
            "buiten deze procedure."
        ),
        Heading("2. Materiaal"),
        Bullets(
            (
                "fijne voedingssonde van polyurethaan, CH 8 of CH 10, met voerdraad;",
                "pH-strips met een schaal van 1 tot 11;",
                "enterale spuit van 50 ml (ENFit);",
                "neuspleister, waterdichte stift, glas water en nierbekken;",
                "handschoenen en een handdoek of onderlegger.",
            )
        ),
        Heading("3. Lengte bepalen"),
        Para(
            "Bepaal de in te brengen lengte met de NEX-methode: meet van de neuspunt naar de oorlel en van de oorlel "
            "naar het xiphoïd (het onderste puntje van het borstbeen)."
        ),
        Para("Noteer de NEX-lengte in het EPD en markeer ze op de sonde."),
        Para(
            "Plaats geen sonde zonder overleg met de arts bij een recent aangezichtstrauma, een schedelbasisfractuur, "
            "slokdarmvarices of een recente ingreep aan de slokdarm of de maag."
        ),
        NewPage(),
        Heading("4. Plaatsen"),
        Steps(
            (
                "Leg uit wat je gaat doen en spreek een stopteken af.",
                "Zet de patiënt halfzittend, met het hoofd licht voorover.",
                "Controleer beide neusgaten en kies het ruimste.",
                "Maak de tip nat en breng de sonde horizontaal in langs de neusbodem.",
                "Laat de patiënt slikken en schuif bij elke slikbeweging op tot aan de markering.",
                "Trek de sonde terug bij hoesten, benauwdheid, cyanose of een daling van de SpO2.",
                "Fixeer de sonde met een neuspleister zonder druk op de neusvleugel.",
                "Laat de voerdraad zitten tot de ligging bevestigd is.",
            )
        ),
        Para("Breng een voerdraad nooit opnieuw in terwijl de sonde in de patiënt zit."),
        Heading("5. Controle van de ligging"),
        Para(
            "Controleer de ligging na het plaatsen, vóór elke start van de voeding of medicatie, en minstens "
            "eenmaal per dienst. Controleer telkens ook of de markering aan het neusgat niet verschoven is."
        ),
        Steps(
            (
                "Zuig met een spuit van 50 ml 1 tot 2 ml maaginhoud op.",
                "Breng het aspiraat aan op een pH-strip.",
                "Een pH van 5,5 of lager bevestigt een maagligging.",
                "Is de pH hoger dan 5,5 of is er geen aspiraat: wacht 1 uur en probeer opnieuw, of vraag een RX-thorax.",
            )
        ),
        Para(
            "Lucht inspuiten en luisteren met de stethoscoop (de blaastest) is onbetrouwbaar en wordt niet meer "
            "gebruikt. Vraag meteen een RX-thorax bij patiënten met een verminderd bewustzijn of zonder slikreflex."
        ),
        NewPage(),
        Heading("6. Sondevoeding toedienen"),
        Bullets(
            (
                "Houd het hoofdeinde tijdens de voeding en tot 1 uur erna op minstens 30°.",
                "Start continu met 20 ml/u via de voedingspomp en verhoog elke 6 uur met 20 ml/u.",
                "Spoel de sonde elke 4 uur met 30 ml kraanwater tijdens continue voeding.",
                "Een gesloten systeem mag 24 uur hangen, een open systeem maximaal 4 uur.",
                "Vervang de toedieningsset elke 24 uur.",
                "Controleer bij risico op refeeding fosfaat, kalium en magnesium dagelijks tijdens de eerste "
                "3 dagen.",
            )
        ),
        Heading("7. Medicatie via de sonde"),
        Bullets(
            (
                "Vraag de apotheek welke medicatie geplet mag worden; plet nooit maagsapresistente of vertraagd "
                "werkende tabletten.",
                "Stop de voeding en spoel vóór de medicatie met 30 ml kraanwater.",
                "Geef de geneesmiddelen één voor één, elk opgelost in 10 ml water, en spoel tussendoor met 10 ml.",
                "Spoel na de laatste medicatie met 30 ml kraanwater.",
            )
        ),
        Heading("8. Problemen"),
        ValueTable(
            header=("Probleem", "Actie"),
            rows=(
                (
                    "Verstopte sonde",
                    "Spoel met lauw water met een spuit van 50 ml; gebruik geen cola of ananassap.",
                ),
                (
                    "Diarree",
                    "Verlaag het debiet en overleg met de diëtist; stop de voeding niet zonder overleg.",
                ),
                ("Braken of reflux", "Stop de voeding, zet het hoofdeinde hoger en controleer de ligging."),
                ("Markering verschoven", "Gebruik de sonde niet en controleer de ligging opnieuw."),
            ),
            widths=(0.28, 0.72),
        ),
    ),
    facts=(
        Fact(1, "Noteer de NEX-lengte in het EPD en markeer ze op de sonde.", "NEX-lengte noteren"),
        Fact(2, "Een pH van 5,5 of lager bevestigt een maagligging.", "pH 5,5 of lager"),
        Fact(
            3,
            "Spoel de sonde elke 4 uur met 30 ml kraanwater tijdens continue voeding.",
            "spoelen 30 ml / 4 uur",
        ),
    ),
)

EARLY_WARNING_SCORE = SampleDoc(
    name="early-warning-score",
    code="UZV-VPL-060",
    title="Early Warning Score (EWS) bij volwassenen",
    audience=("volwassenen",),
    department=("verpleging", "intensieve zorg"),
    scope="Doelgroep: volwassen patiënten op de verpleegafdelingen; niet op intensieve zorg, niet bij "
    "zwangere vrouwen en niet bij kinderen. Dienst: verpleging en intensieve zorg (MET-team).",
    blocks=(
        Heading("1. Doel"),
        Para(
            "De Early Warning Score (EWS) helpt om de achteruitgang van een patiënt vroeg te herkennen, zodat de "
            "juiste zorgverlener op tijd komt. De EWS is de som van de punten voor zeven parameters. Het EPD "
            "berekent de score automatisch zodra alle parameters ingevuld zijn. Een geïsoleerde meting zegt "
            "weinig: let op het verloop."
        ),
        Heading("2. Parameters en punten"),
        ValueTable(
            header=("Parameter", "0 punten", "1 punt", "2 punten", "3 punten"),
            rows=(
                ("Ademfrequentie (/min)", "12–20", "9–11", "21–24", "8 of lager, 25 of hoger"),
                ("SpO2 (%)", "96 of hoger", "94–95", "92–93", "91 of lager"),
                ("Extra zuurstof", "nee", "–", "ja", "–"),
                ("Temperatuur (°C)", "36,1–38,0", "35,1–36,0 of 38,1–39,0", "39,1 of hoger", "35,0 of lager"),
                ("Systolische bloeddruk (mmHg)", "111–219", "101–110", "91–100", "90 of lager, 220 of hoger"),
                ("Hartfrequentie (/min)", "51–90", "41–50 of 91–110", "111–130", "40 of lager, 131 of hoger"),
                ("Bewustzijn (AVPU)", "A (alert)", "–", "–", "V, P of U, of nieuwe verwardheid"),
            ),
            widths=(0.26, 0.15, 0.21, 0.16, 0.22),
        ),
        Para(
            "Meet de ademfrequentie altijd gedurende een volle minuut; ze is de gevoeligste parameter en wordt het "
            "vaakst geschat in plaats van geteld."
        ),
        NewPage(),
        Heading("3. Meetfrequentie en actie"),
        ValueTable(
            header=("EWS", "Risico", "Meten", "Actie"),
            rows=(
                ("0", "laag", "minstens elke 12 uur", "verder volgen"),
                ("1–4", "laag", "minstens elke 6 uur", "de verantwoordelijke verpleegkundige beoordeelt"),
                ("3 op één parameter", "laag tot matig", "minstens elk uur", "verwittig de arts"),
                ("5–6", "matig", "minstens elk uur", "de arts beoordeelt de patiënt binnen 30 minuten"),
                ("7 of hoger", "hoog", "continue monitoring", "bel onmiddellijk het MET-team"),
            ),
            widths=(0.18, 0.16, 0.22, 0.44),
        ),
        Para("Bel bij een EWS van 7 of hoger onmiddellijk het MET-team."),
        Heading("4. Werkwijze"),
        Steps(
            (
                "Meet alle zeven parameters; een onvolledige meting geeft geen betrouwbare score.",
                "Controleer de score die het EPD berekent.",
                "Onderneem actie volgens de tabel en noteer wie je verwittigd hebt en wanneer.",
                "Meet opnieuw binnen de tijd die de tabel aangeeft, ook 's nachts.",
            )
        ),
        Para(
            "Ongerustheid van de verpleegkundige is altijd een reden om te bellen, ook bij een lage score. Ook "
            "een plotse daling van de urineproductie, nieuwe pijn op de borst of een veranderd gedrag zijn "
            "redenen om de arts te verwittigen."
        ),
        Heading("5. Communiceren met SBAR"),
        Bullets(
            (
                "Situatie: wie je bent, over welke patiënt je belt, wat het probleem is en de EWS.",
                "Achtergrond: reden van opname, relevante voorgeschiedenis en behandeling.",
                "Beoordeling: wat je denkt dat er aan de hand is.",
                "Advies: wat je vraagt, bv. dat de arts binnen 30 minuten komt.",
            )
        ),
        NewPage(),
        Heading("6. Het MET-team"),
        Para(
            "Het MET-team (medisch urgentieteam: een arts en een verpleegkundige van intensieve zorg) is dag en "
            "nacht bereikbaar op het interne nummer 5555 en is binnen 10 minuten ter plaatse. Bel het MET-team "
            "ook los van de EWS bij een bedreigde luchtweg, convulsies of een acute bewustzijnsdaling. Bij een "
            "hartstilstand bel je het reanimatienummer."
        ),
        Heading("7. Bijzondere situaties"),
        Bullets(
            (
                "Bij COPD met hypercapnie is de streefwaarde voor SpO2 88 tot 92%.",
                "Bij deze patiënten scoort de SpO2 alleen op voorschrift van de arts volgens die streefwaarde.",
                "Bètablokkers maskeren een snelle pols; een normale hartfrequentie sluit een probleem niet uit.",
                "Bij een palliatieve patiënt kan de arts in het EPD noteren dat de EWS niet tot escalatie leidt.",
            )
        ),
        Heading("8. Opvolging"),
        Para(
            "Het MET-team bespreekt elke oproep met de afdeling. Het aantal onverwachte opnames op intensieve zorg "
            "en het aantal reanimaties per 1000 opnames worden elk kwartaal officieel gerapporteerd aan het "
            "comité kwaliteit en patiëntveiligheid."
        ),
    ),
    facts=(
        Fact(1, "De EWS is de som van de punten voor zeven parameters.", "EWS = som van 7 parameters"),
        Fact(2, "Bel bij een EWS van 7 of hoger onmiddellijk het MET-team.", "EWS 7+: MET-team"),
        Fact(3, "Bij COPD met hypercapnie is de streefwaarde voor SpO2 88 tot 92%.", "COPD: SpO2 88–92%"),
    ),
)

HELDOUT_DOCS: tuple[SampleDoc, ...] = (
    PARACETAMOL_KINDEREN,
    PARACETAMOL_VOLWASSENEN,
    BLOEDTRANSFUSIE_VOLWASSENEN,
    BLOEDTRANSFUSIE_NEONATEN,
    VERBLIJFSKATHETER_MAN,
    VERBLIJFSKATHETER_VROUW,
    CVC_VERZORGING,
    PICC_VERZORGING,
    VALPREVENTIE,
    PIJNMETING,
    SONDEVOEDING,
    EARLY_WARNING_SCORE,
)

# Pairs of the same procedure for different patient groups or devices (README).
HELDOUT_SIBLINGS: tuple[tuple[SampleDoc, SampleDoc], ...] = (
    (PARACETAMOL_KINDEREN, PARACETAMOL_VOLWASSENEN),
    (BLOEDTRANSFUSIE_VOLWASSENEN, BLOEDTRANSFUSIE_NEONATEN),
    (VERBLIJFSKATHETER_MAN, VERBLIJFSKATHETER_VROUW),
    (CVC_VERZORGING, PICC_VERZORGING),
)

PCM_K, PCM_V, TRF_V, TRF_N, KAT_M, KAT_V, CVC, PICC, VAL, PIJN, SONDE, EWS = (
    f"{d.name}.pdf" for d in HELDOUT_DOCS
)

# Written as a clinician would ask them, before and without any retrieval run; never tune them to a search engine.
HELDOUT_QUESTIONS: tuple[Question, ...] = (
    Question("max dosis pcm kind 15 kg", {PCM_K: "15 kg 225 mg 9,4 ml 900 mg"}),
    Question("pcm zetpil kind om de hoeveel uur", {PCM_K: "Rectaal (zetpil) 20 mg/kg elke 8 uur"}),
    Question("paracetamol iv zuigeling 8 kg dosis", {PCM_K: "i.v., gewicht onder 10 kg 7,5 mg/kg"}),
    Question("siroop paracetamol kind 20 kg hoeveel ml", {PCM_K: "20 kg 300 mg 12,5 ml"}),
    Question("koortsstuipen voorkomen met paracetamol?", {PCM_K: "Paracetamol voorkomt geen koortsstuipen."}),
    Question(
        "paracetamol max per dag bij chronisch alcoholgebruik", {PCM_V: "Geef maximaal 3 g per 24 uur bij"}
    ),
    Question(
        "minimum interval pcm volwassene", {PCM_V: "Het minimale interval tussen twee giften is 4 uur."}
    ),
    Question("paracetamol 1 g iv in hoeveel ml", {PCM_V: "1 g in 100 ml"}),
    Question("pcm bij nierinsufficiëntie eGFR 25", {PCM_V: "eGFR onder 30 ml/min"}),
    Question(
        "neutropene patiënt temperatuur meten voor pcm",
        {PCM_V: "Meet bij neutropene patiënten de temperatuur"},
    ),
    Question(
        "paracetamol iv hoe snel laten inlopen",
        {PCM_K: "met de spuitpomp in 15 minuten", PCM_V: "i.v. toe over 15 minuten"},
    ),
    Question(
        "paracetamol intoxicatie wanneer spiegel prikken",
        {PCM_K: "4 uur na de inname, niet vroeger", PCM_V: "4 uur na de inname, niet vroeger"},
    ),
    Question(
        "hb drempel transfusie volwassene met hartlijden",
        {TRF_V: "Cardiovasculaire ziekte of acuut coronair syndroom Hb lager dan 8 g/dL"},
    ),
    Question("kruisproef hoelang geldig bij volwassene", {TRF_V: "De kruisproef is 72 uur geldig."}),
    Question("EC volwassene hoelang laten inlopen", {TRF_V: "1,5 tot 2 uur per eenheid"}),
    Question("trombocyten bewaren in koelkast?", {TRF_V: "20–24 °C, geschud; nooit in de koelkast"}),
    Question("hoeveel stijgt hb na 1 EC", {TRF_V: "gemiddeld met 1 g/dL"}),
    Question("transfusie neonaat hoeveel ml/kg EC", {TRF_N: "Erytrocyten 15 ml/kg 3 uur"}),
    Question("inloopsnelheid erytrocyten neonaat", {TRF_N: "5 ml/kg per uur"}),
    Question(
        "kruisproef herhalen bij prematuur van 6 weken?",
        {TRF_N: "Tot de leeftijd van 4 maanden is geen nieuwe kruisproef nodig."},
    ),
    Question("hb grens transfusie neonaat week 1 op CPAP", {TRF_N: "Week 1 Hb lager dan 11 g/dL"}),
    Question("bestraald bloed nodig bij neonaat", {TRF_N: "Erytrocyten voor neonaten zijn bestraald"}),
    Question(
        "transfusiereactie wat doen",
        {TRF_V: "Stop de transfusie onmiddellijk", TRF_N: "Stop de spuitpomp en koppel de spuit los"},
    ),
    Question("filter bloedtransfusie hoeveel µm", {TRF_V: "170–200 µm", TRF_N: "170–200 µm"}),
    Question("blaaskatheter man welke maat CH", {KAT_M: "CH 14 of CH 16"}),
    Question(
        "lidocaïnegel man hoeveel ml en hoelang wachten",
        {KAT_M: "11 ml glijmiddel met lidocaïne in de urethra en wacht 5 minuten"},
    ),
    Question("weerstand prostaat bij sonderen", {KAT_M: "vraag de patiënt diep te zuchten"}),
    Question("voorhuid na katheterisatie", {KAT_M: "Plaats de voorhuid altijd terug over de glans."}),
    Question(
        "hoeveel pogingen katheter man voor uroloog",
        {KAT_M: "Stop na 2 mislukte pogingen en verwittig de uroloog."},
    ),
    Question("verblijfskatheter vrouw welke CH", {KAT_V: "CH 12 of CH 14"}),
    Question("katheter per ongeluk in vagina", {KAT_V: "laat hem dan liggen als herkenningspunt"}),
    Question("blaaskatheter vrouw hoe ver opschuiven", {KAT_V: "5 tot 7 cm op tot er urine vloeit"}),
    Question(
        "katheteriseren vrouw na heupoperatie houding",
        {KAT_V: "zijligging met het bovenste been opgetrokken"},
    ),
    Question(
        "reinigen schaamlippen volgorde bij katheter",
        {KAT_V: "eerst de grote schaamlippen, dan de kleine, als laatste de meatus"},
    ),
    Question(
        "ballon verblijfskatheter vullen met wat",
        {KAT_M: "Vul de ballon met 10 ml steriel water", KAT_V: "Vul de ballon met 10 ml steriel water"},
    ),
    Question(
        "silicone blaaskatheter hoelang laten zitten",
        {KAT_M: "Silicone 12 weken", KAT_V: "Silicone 12 weken"},
    ),
    Question(
        "cvc gaasverband hoe vaak wisselen",
        {CVC: "Gaasverband (bij bloeding, zweten of lekkage) elke 2 dagen"},
    ),
    Question("infuuslijnen cvc vervangen hoe vaak", {CVC: "bloedproducten elke 96 uur"}),
    Question("propofol lijn hoe vaak vervangen", {CVC: "voor propofol elke 12 uur"}),
    Question("cvc verwijderen houding patiënt", {CVC: "plat of in lichte Trendelenburg"}),
    Question("bloedkweken bij koorts en cvc", {CVC: "één via de CVC en één via een perifere"}),
    Question("armomtrek picc hoeveel cm toename arts bellen", {PICC: "armomtrek met 3 cm of meer"}),
    Question(
        "picc niet in gebruik hoe vaak spoelen",
        {PICC: "Spoel een ongebruikte PICC minstens eenmaal per week."},
    ),
    Question("bloeddruk meten aan arm met picc?", {PICC: "Meet geen bloeddruk"}),
    Question("contrast inspuiten via picc mag dat", {PICC: "power injectable"}),
    Question(
        "eerste verbandwissel na plaatsen picc",
        {PICC: "De eerste verbandwissel gebeurt 24 uur na plaatsing."},
    ),
    Question(
        "transparant verband centrale lijn hoe vaak vervangen",
        {CVC: "met chloorhexidinegelpad elke 7 dagen", PICC: "Transparant verband elke 7 dagen"},
    ),
    Question(
        "centrale lijn spoelen welke spuitgrootte",
        {CVC: "Gebruik geen spuit kleiner dan 10 ml", PICC: "Gebruik geen spuit kleiner dan 10 ml"},
    ),
    Question("valrisico screenen vanaf welke leeftijd", {VAL: "65 jaar of ouder"}),
    Question("orthostatische bloeddruk meten hoe", {VAL: "opnieuw na 1 minuut en na 3 minuten staan"}),
    Question("bedhekken omhoog bij valgevaar?", {VAL: "Bedhekken zijn geen valpreventie."}),
    Question("na val zonder getuigen neuro controle hoe vaak", {VAL: "0 tot 4 uur elk uur"}),
    Question("val melden binnen hoeveel tijd", {VAL: "Meld de val binnen 24 uur"}),
    Question("toiletronde 's nachts bij valrisico", {VAL: "elke 3 uur 's nachts"}),
    Question("NRS vanaf wanneer pijnstilling", {PIJN: "Vanaf NRS 4 onderneem je altijd actie."}),
    Question("VAS in mm wanneer actie", {PIJN: "Op de VAS komt dat overeen met 40 mm of meer."}),
    Question("pijnscore hoe vaak meten", {PIJN: "bij opname en daarna minstens eenmaal per dienst"}),
    Question("pijn meten bij dementie welke schaal", {PIJN: "PAINAD-schaal"}),
    Question("pijnscore na orale pijnstilling wanneer herhalen", {PIJN: "60 minuten na een orale gift"}),
    Question(
        "opioïd geven bij sedatiescore 2?",
        {PIJN: "Geef geen extra opioïd bij een sedatiescore van 2 of meer"},
    ),
    Question("maagsonde ligging ph waarde", {SONDE: "Een pH van 5,5 of lager bevestigt een maagligging."}),
    Question("sondevoeding hoofdeinde hoeveel graden", {SONDE: "tot 1 uur erna op minstens 30°"}),
    Question("sonde spoelen hoeveel water bij continue voeding", {SONDE: "elke 4 uur met 30 ml kraanwater"}),
    Question("lengte neus-maagsonde bepalen", {SONDE: "meet van de neuspunt naar de oorlel"}),
    Question("sondevoeding opstarten ml per uur", {SONDE: "Start continu met 20 ml/u"}),
    Question("verstopte sonde cola gebruiken?", {SONDE: "gebruik geen cola of ananassap"}),
    Question("ews 7 wat doen", {EWS: "Bel bij een EWS van 7 of hoger onmiddellijk het MET-team."}),
    Question("ews 5 hoe vaak meten", {EWS: "5–6 matig minstens elk uur"}),
    Question("ademfrequentie 23 hoeveel punten ews", {EWS: "Ademfrequentie (/min) 12–20 9–11 21–24"}),
    Question("streefwaarde saturatie copd", {EWS: "SpO2 88 tot 92%"}),
    Question("ews 0 hoe vaak parameters meten", {EWS: "0 laag minstens elke 12 uur"}),
    Question(
        "bezorgd over patiënt maar lage ews, bellen?",
        {EWS: "Ongerustheid van de verpleegkundige is altijd een reden om te bellen"},
    ),
    # Not answerable from any document (abstention); `absent` words occur in no sample document at all.
    Question("dosering morfine pca pomp", absent=("morfine", "PCA")),
    Question("wondzorg na sectio", absent=("sectio", "keizersnede")),
    Question("ibuprofen max dosis kind", absent=("ibuprofen",)),
    Question("paracetamol dosis neonaat"),  # paracetamol-kinderen.pdf starts at 1 month and refers elsewhere
    Question("suprapubische katheter verzorgen", absent=("suprapubis",)),
    Question("port-a-cath aanprikken welke naald", absent=("port-a-cath", "huber")),
    Question("PEG sonde insteekplaats verzorging", absent=("PEG", "gastrostom")),
    Question("thoraxdrain verband wisselen hoe vaak", absent=("thoraxdrain",)),
    Question("vancomycine dalspiegel wanneer afnemen", absent=("vancomycine",)),
    Question("colostoma zakje vervangen", absent=("stoma", "colostoma")),
    Question("epidurale katheter insteekplaats controle", absent=("epidura",)),
    Question("transfusie kind 6 jaar hoeveel ml/kg"),  # adults from 18 and neonates up to 4 months only
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
    # held-out collection
    "combinatie|preparaten",
    "lever|insufficiëntie",
    "risico|factoren",
    "anti|histaminicum",
    "trans|fusie|bon",
    "urine|weg|infectie",
    "anti|stoffen",
    "hypo|tensie",
    "zuige|lingen",
    "kinder|arts",
    "glij|middel",
    "arm|omtrek",
    "vena|punctie",
    "in|gebracht",
    "rechter|boezem",
    "bevestigings|systeem",
    "bloeddruk|daling",
    "blaas|volume",
    "peri|operatief",
    "anti|bio|tica",
    "bloed|kweken",
    "heup|fractuur",
    "hoofd|letsel",
    "ademhalings|frequentie",
    "gelaats|uitdrukking",
    "schedelbasis|fractuur",
    "neus|pleister",
    "hart|stilstand",
    "neo|nato|logie|formularium",
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
@dataclass(frozen=True)
class Collection:
    directory: Path  # gets documents/, questions.csv and facts.json
    docs: tuple[SampleDoc, ...]
    questions: tuple[Question, ...]


SAMPLES = Collection(HERE, DOCS, QUESTIONS)
HELDOUT = Collection(HERE / "heldout", HELDOUT_DOCS, HELDOUT_QUESTIONS)
COLLECTIONS = (SAMPLES, HELDOUT)

README_HEAD = """\
# Sample documents

Five small **fictional** clinical procedures of the fictional hospital "UZ Voorbeeld", written for Vraagbaak
to exercise ingestion, retrieval, metadata filtering and evaluation, and a separate held-out set of twelve more
(`heldout/`, see [below](#held-out-evaluation-set-heldout)). Every page says
"Voorbeelddocument – fictief, niet voor klinisch gebruik": the content is plausible but has not been
validated and must never be used for patient care.

This file, the PDFs, the `.meta.json` sidecars, `questions.csv` and `facts.json` (here and in `heldout/`) are all
generated by `make_samples.py`; edit the script, not the outputs. Regenerate (byte-identical, reportlab
`invariant=1`):

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

README_HELDOUT = """
## Held-out evaluation set (`heldout/`)

Twelve more fictional procedures of UZ Voorbeeld, in the same format and style as the five above (same
header, footer, fictional notice, checks and `MAX_BYTES` limit) but on other topics, with their own questions. They
measure whether the chat knows when it does not know: asked about a procedure that is not indexed, it must say
that it found no answer. The five sample documents and `questions.csv` were used to choose thresholds; this set was
written blind, independently of any retrieval run, and must stay held out: **do not tune thresholds, prompts or
questions on it**, or it stops measuring anything. Index `heldout/documents` and evaluate with
`heldout/questions.csv`.

| File | Audience | Department | Pages | Questions |
|---|---|---|---|---|
{docs}

* `heldout/documents/<name>.pdf` + `<name>.meta.json`, `heldout/questions.csv` and `heldout/facts.json`, in the
  formats described above.
* `heldout/questions.csv`: {n_questions} short, clinician-style questions. {n_answerable} are answered by the
  document(s) listed, {n_shared} of them by both documents of a pair because the question leaves the patient group
  or device open (the Questions column counts the questions that list the document). The last {n_unanswerable}
  are answered by no document: procedures that were not written (e.g. PCA with morphine, wound care after a
  caesarean) and two near misses, paracetamol for a neonate and a transfusion for a 6-year-old, patient groups
  that the paracetamol and transfusion procedures explicitly leave out.
* Sibling documents (same topic, other patient group or device) differ in concrete facts (doses, intervals,
  volumes, sizes); a question that names the group or device is answered by that document only:
{siblings}
* The script checks that each answer snippet is in the listed document and in no other held-out document, and
  that the key words of the unanswerable questions (e.g. `morfine`, `sectio`, `ibuprofen`) occur in no document
  of either collection.
* Keep the two collections in separate indexes: `heldout/documents/paracetamol-volwassenen.pdf` answers
  "dosis paracetamol i.v. bij volwassene", one of the unanswerable questions of `questions.csv`.

Facts per page (as above, in `heldout/facts.json`):

| Fact | Document | Page | Exact sentence |
|---|---|---|---|
{facts}
"""


def write_collection(
    collection: Collection, errors: list[str]
) -> tuple[dict[str, int], dict[str, str], list[dict[str, str | int]]]:
    """Write one collection; return its page counts, each PDF's normalised text, and its facts."""
    doc_dir = collection.directory / "documents"
    doc_dir.mkdir(parents=True, exist_ok=True)
    page_counts: dict[str, int] = {}
    bodies: dict[str, str] = {}
    for doc in collection.docs:
        data = render(doc)
        if render(doc) != data:
            errors.append(f"{doc.name}.pdf: output is not deterministic")
        check(doc, data, collection.questions, errors.append)
        page_counts[doc.name] = len(PdfReader(io.BytesIO(data)).pages)
        bodies[f"{doc.name}.pdf"] = normalize("\n".join(page_texts(data)))
        (doc_dir / f"{doc.name}.pdf").write_bytes(data)
        sidecar = {"audience": list(doc.audience), "department": list(doc.department)}
        (doc_dir / f"{doc.name}.meta.json").write_text(json.dumps(sidecar, ensure_ascii=False) + "\n")

    check_questions(collection, bodies, errors.append)

    with (collection.directory / "questions.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["question", "relevant_documents"])
        for q in collection.questions:
            writer.writerow([q.text, ";".join(q.evidence)])

    facts: list[dict[str, str | int]] = [
        {"document": f"{d.name}.pdf", "page": f.page, "sentence": f.sentence}
        for d in collection.docs
        for f in d.facts
    ]
    (collection.directory / "facts.json").write_text(json.dumps(facts, ensure_ascii=False, indent=2) + "\n")
    return page_counts, bodies, facts


def check_questions(collection: Collection, bodies: dict[str, str], fail: Callable[[str], None]) -> None:
    """Questions name known documents, are not repeated, and each answer is only in the documents listed."""
    seen: set[str] = set()
    for q in collection.questions:
        if q.text in seen:
            fail(f"question {q.text!r} is asked twice")
        seen.add(q.text)
        unknown = set(q.evidence) - set(bodies)
        if unknown:
            fail(f"question {q.text!r} names unknown documents {sorted(unknown)}")
        if q.evidence and q.absent:
            fail(f"question {q.text!r} has an answer and words that must be absent")
    for doc in collection.docs:
        if not any(f"{doc.name}.pdf" in q.evidence for q in collection.questions):
            fail(f"{doc.name}.pdf: no question is answered by it")
    for q in collection.questions:
        for pdf, snippet in q.evidence.items():
            elsewhere = [
                other
                for other, body in bodies.items()
                if other not in q.evidence and normalize(snippet) in body
            ]
            if elsewhere:
                fail(f"{pdf}: answer {snippet!r} for {q.text!r} is also in unlisted {elsewhere}")


def check_absent(questions: Sequence[Question], bodies: dict[str, str], fail: Callable[[str], None]) -> None:
    """The words of an unanswerable question occur in no document of any collection."""
    for q in questions:
        for word in q.absent:
            pattern = re.compile(rf"\b{re.escape(word)}", re.IGNORECASE)
            hits = sorted(pdf for pdf, body in bodies.items() if pattern.search(body))
            if hits:
                fail(f"question {q.text!r}: {word!r} must be in no document but is in {hits}")


def write_outputs() -> int:
    errors: list[str] = []
    page_counts: dict[str, int] = {}
    all_bodies: dict[str, str] = {}
    all_facts: dict[Path, list[dict[str, str | int]]] = {}
    for collection in COLLECTIONS:
        counts, bodies, facts = write_collection(collection, errors)
        page_counts |= counts
        all_bodies |= {
            f"{collection.directory.relative_to(HERE)}/{pdf}": body for pdf, body in bodies.items()
        }
        all_facts[collection.directory] = facts
    check_absent([q for c in COLLECTIONS for q in c.questions], all_bodies, errors.append)

    def doc_rows(docs: Sequence[SampleDoc], prefix: str, questions: Sequence[Question] | None = None) -> str:
        rows = []
        for d in docs:
            row = (
                f"| `{prefix}documents/{d.name}.pdf` ({d.title}) | {', '.join(d.audience)} "
                f"| {', '.join(d.department)} | {page_counts[d.name]} |"
            )
            if questions is not None:
                row += f" {sum(f'{d.name}.pdf' in q.evidence for q in questions)} |"
            rows.append(row)
        return "\n".join(rows)

    def fact_rows(docs: Sequence[SampleDoc]) -> str:
        return "\n".join(
            f"| {f.summary} | `{d.name}.pdf` | {f.page} | {f.sentence} |" for d in docs for f in d.facts
        )

    readme = README_HEAD.format(
        docs=doc_rows(DOCS, ""),
        facts=fact_rows(DOCS),
        n_unanswerable=sum(not q.evidence for q in QUESTIONS),
    )
    readme += README_HELDOUT.format(
        docs=doc_rows(HELDOUT_DOCS, "heldout/", HELDOUT_QUESTIONS),
        facts=fact_rows(HELDOUT_DOCS),
        n_questions=len(HELDOUT_QUESTIONS),
        n_answerable=sum(bool(q.evidence) for q in HELDOUT_QUESTIONS),
        n_shared=sum(len(q.evidence) > 1 for q in HELDOUT_QUESTIONS),
        n_unanswerable=sum(not q.evidence for q in HELDOUT_QUESTIONS),
        siblings="\n".join(f"  * `{a.name}.pdf` / `{b.name}.pdf`" for a, b in HELDOUT_SIBLINGS),
    )
    (HERE / "README.md").write_text(readme)

    for error in errors:
        print(f"ERROR: {error}", file=sys.stderr)
    if not errors:
        for collection in COLLECTIONS:
            doc_dir = collection.directory / "documents"
            sizes = ", ".join(
                f"{d.name}.pdf {(doc_dir / f'{d.name}.pdf').stat().st_size} B" for d in collection.docs
            )
            print(
                f"{collection.directory.relative_to(HERE.parent)}: wrote {len(collection.docs)} PDFs ({sizes}), "
                f"{len(collection.questions)} questions, {len(all_facts[collection.directory])} facts"
            )
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(write_outputs())
