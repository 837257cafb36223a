"""Language tables for the answer-language check: one entry per language, read by ``answer_language.py``.

A new language is a new entry here (plus its lingua name), not a new branch in the code.

``cues`` are orthographic marker words: spellings that are words of that language and of no
other language in the detector's close set (Bokmål, Nynorsk, Danish, Swedish, English, German),
e.g. Bokmål ``hva``/``ble``/``noen``/``mye`` against Danish ``hvad``/``blev``/``nogen``/``meget``.
A word valid in two of the languages (Bokmål and Nynorsk ``etter``) is listed under both.
``suffixes`` are word endings with the same property (``-sjon`` against ``-tion``).
They only tip close calls: each hit multiplies the language's odds by a fixed factor.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LanguageTable:
    code: str  # ISO 639-1
    name: str
    lingua: str  # lingua.Language member name
    cues: frozenset[str] = frozenset()
    suffixes: tuple[str, ...] = ()


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Shared by Bokmål and Nynorsk (Norwegian against Danish/Swedish).
_NORWEGIAN = """
    etter mellom slik dersom deg meg seg kjøpe kjøper selskap selskapet selskaper beløp beløpet
    spørsmål spørsmålet mva skattemelding skattemeldingen skattemeldinga nei takk skatteetaten
    mellomtiden
"""

LANGUAGES: dict[str, LanguageTable] = {
    "nb": LanguageTable(
        "nb",
        "Norwegian Bokmål",
        "BOKMAL",
        _words(
            _NORWEGIAN
            + """
            hva ble noen noe mye uke uken dere hverandre fikk gikk gjøre gjør gjelder regnskap
            regnskapet virksomhet virksomheten utgjør trenger ennå sier lønn forskuddstrekk
            avgiften merverdiavgiften vanligvis tjenester hovedbok hovedboken
        """
        ),
        ("sjon", "sjonen", "sjoner", "sjonene", "heten", "skapet"),
    ),
    "nn": LanguageTable(
        "nn",
        "Norwegian Nynorsk",
        "NYNORSK",
        _words(
            _NORWEGIAN
            + """
            ikkje eg kva korleis kvifor kven kvar ein eit frå heim heime berre mykje noko nokon
            nokre ho dei vere òg sjølv gjekk kjem fekk vart gjere gjer rekneskap rekneskapen
            verksemd verksemda utgjer treng enno seier heile difor avgifta meirverdiavgifta
            vanlegvis naudsynt høyrer dykk tenester hovudbok hovudboka
        """
        ),
        ("sjon", "sjonen", "sjonar", "sjonane", "heita", "skapen"),
    ),
    "da": LanguageTable(
        "da",
        "Danish",
        "DANISH",
        _words("""
            hvad af blev nogen noget nogle meget efter mellem dig mig sig jer hinanden fik gik
            gøre gør gælder regnskab regnskabet virksomhed virksomheden selskab selskabet
            spørgsmål beløb beløbet uge ugen købe bliver siger sige udgør endnu nej sådan
            moms momsen skattestyrelsen nødvendigt selvangivelsen
        """),
        ("tion", "tionen", "tioner", "tionerne", "heden", "skabet"),
    ),
    "sv": LanguageTable(
        "sv",
        "Swedish",
        "SWEDISH",
        _words("""
            och inte är att jag vad hur för också mycket någon något några nej dig mig sig efter
            blev ett till från inom mellan behöver fortfarande hemma sådan vilket lön lönen
            moms momsen skatteverket årsredovisningen
        """),
        ("tion", "tionen", "tioner", "heten", "skapet"),
    ),
    "en": LanguageTable(
        "en",
        "English",
        "ENGLISH",
        _words("""
            the and are of with that this which you your been not has it its from or will would
            should can could their there they what when where why how
        """),
        ("tion", "tions", "ness"),
    ),
    "de": LanguageTable(
        "de",
        "German",
        "GERMAN",
        _words("""
            und die das nicht ist ich zu auf für von sie wir eine einen auch werden wird sind
            haben hat oder aber nach bei
        """),
        ("ung", "ungen", "heit", "keit", "tion"),
    ),
}

# Locale or language tag (lower case, before any '-' or '_') -> the detected codes that count
# as a match. Nynorsk counts as Norwegian for nb and the other way round.
ACCEPTED: dict[str, frozenset[str]] = {
    "nb": frozenset({"nb", "nn"}),
    "nn": frozenset({"nb", "nn"}),
    "no": frozenset({"nb", "nn"}),
    "da": frozenset({"da"}),
    "sv": frozenset({"sv"}),
    "en": frozenset({"en"}),
    "de": frozenset({"de"}),
}

TARGET_NAMES: dict[str, str] = {
    "nb": "Norwegian",
    "nn": "Norwegian",
    "no": "Norwegian",
    "da": "Danish",
    "sv": "Swedish",
    "en": "English",
    "de": "German",
}

# Common English words that are not also everyday words of Bokmål, Nynorsk, Danish or Swedish
# ('to', 'be', 'have', 'give', 'all', 'more', 'most', 'rate', 'register', 'standard', 'total',
# 'service' and 'import' are, so they are left out). Lists English words inside other answers.
ENGLISH_WORDS = _words("""
    the and of with that this which you your yours been not has its from or will would
    should could their there they them what when where why how who whom about because
    into than then these those through during before after above below between without within
    also only very such each other some any both either neither much few can cannot
    does did done doing make made get got take taken use used using need needs please
    however therefore although while whether yes
    tax taxes taxable invoice invoices invoicing deadline deadlines revenue revenues income
    expense expenses cost costs fee fees payment payments payable receivable receivables
    account accounts accounting bookkeeping ledger report reports reporting return
    returns filing file files submit submitted company companies business businesses
    employee employees employer salary salaries payroll withholding deduction deductions
    deductible exempt exemption rates amount amounts due date dates year years
    month months quarter quarterly annual annually value added output input purchase
    purchases sale sales goods customer customers supplier suppliers
    audit auditor board shareholder shareholders dividend dividends profit profits loss
    losses equity asset assets liability liabilities balance sheet statement statements
    depreciation inventory compliance requirement requirements required rules rule law
    authority authorities registered registration threshold chart mapping
    exports credit debit refund refunds correct incorrect example following include
    includes including
""")

# Proper nouns and terms an answer in another language may use as they are (compared case-
# insensitively, as whole tokens or phrases). Extend per sample with eval_criteria.language_allow.
DEFAULT_ALLOW: tuple[str, ...] = (
    "SAF-T",
    "SAF-T Financial",
    "MVA",
    "NS 4102",
    "NS 4102:2023",
    "ISO",
    "IFRS",
    "GAAP",
    "NGAAP",
    "EHF",
    "PEPPOL",
    "Altinn",
    "A-melding",
    "A-meldingen",
    "Skatteetaten",
    "Brønnøysundregistrene",
    "OECD",
    "EU",
    "EØS",
    "XML",
    "PDF",
    "API",
    "CSV",
    "ERP",
    "VAT",
)
