"""Answer-extraction patterns for :mod:`pytest_llmeval.metrics.extractive.match` (stdlib only).

The regexes follow the priority scheme of the public ``math-verify`` library
(Apache-2.0, HuggingFace) and the multilingual variant of lighteval (MIT): each
target contributes ``(pattern, priority)`` pairs; lower priority runs first and,
within a priority, the right-most match wins ("last answer wins").  English
patterns are kept identical to math-verify's so its conventions carry over;
other languages add their own "answer" words, punctuation and connectives from
the tables below.  Nothing here parses maths: it only finds candidate text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

__all__ = [
    "LANGUAGES",
    "Lang",
    "expr_patterns",
    "index_patterns",
    "latex_patterns",
    "resolve_language",
    "string_patterns",
    "unicode_to_latex",
]

Patterns = tuple[tuple["re.Pattern[str]", int], ...]


@dataclass(frozen=True)
class Lang:
    """Words and punctuation of one language, as used by the extraction patterns."""

    code: str
    answer: tuple[str, ...]  # words introducing the answer ("answer", "réponse", "答案")
    final_answer: tuple[str, ...] = ()  # "final answer is" style phrases
    choice: tuple[str, ...] = ()  # "option", "choice", "选" (multiple choice only)
    and_words: tuple[str, ...] = ("and",)
    or_words: tuple[str, ...] = ("or",)
    full_stop: str = "."
    comma: str = ","
    colon: str = ":"
    space: str = " "
    letters: str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    # Choice labels in the language's own script (Russian А Б В Г, Arabic أ ب ج د, Hindi क ख ग घ),
    # accepted next to the Latin letters.  They are compared as written, never mapped to A-D:
    # Cyrillic "В" is the third option although it looks like Latin "B".
    native: tuple[str, ...] = ()


# English stays first in every alternation: model answers in other languages often
# still say "Answer:" or "Final answer".
LANGUAGES: dict[str, Lang] = {
    "en": Lang("en", ("answer",), ("final answer",), ("option", "choice")),
    "fr": Lang(
        "fr",
        ("réponse", "reponse"),
        ("réponse finale", "reponse finale"),
        ("option", "choix"),
        ("et",),
        ("ou",),
    ),
    "zh": Lang(
        "zh",
        ("答案", "答"),
        ("最终答案", "最后答案"),
        ("选项", "选择", "选"),
        ("和",),
        ("或",),
        full_stop="。",
        comma="，",
        colon="：",
        space="",
    ),
    "de": Lang(
        "de", ("antwort",), ("endgültige antwort",), ("option", "wahl"), ("und",), ("oder",)
    ),
    "es": Lang("es", ("respuesta",), ("respuesta final",), ("opción", "opcion"), ("y",), ("o",)),
    "it": Lang("it", ("risposta",), ("risposta finale",), ("opzione", "scelta"), ("e",), ("o",)),
    "pt": Lang("pt", ("resposta",), ("resposta final",), ("opção", "opcao"), ("e",), ("ou",)),
    "ja": Lang(
        "ja",
        ("答え", "回答", "解答"),
        ("最終的な答え", "最終回答"),
        ("選択肢",),
        ("と",),
        ("または",),
        full_stop="。",
        comma="、",
        colon="：",
        space="",
    ),
}


def _more(
    code: str,
    answer: tuple[str, ...],
    final: tuple[str, ...],
    choice: tuple[str, ...],
    and_w: str,
    or_w: tuple[str, ...],
    **kw: object,
) -> None:
    LANGUAGES[code] = Lang(code, answer, final, choice, (and_w,), or_w, **kw)  # type: ignore[arg-type]


# The "answer is" words of further languages (the set covered by lighteval's multilingual
# extraction); the punctuation defaults to ". , :" with spaces between words.
# fmt: off
_CYRILLIC = ("А", "Б", "В", "Г", "Д", "Е")
_DEVANAGARI = ("क", "ख", "ग", "घ", "ङ", "च")
_more("ar", ("الإجابة", "إجابة", "الجواب", "جواب"), ("الإجابة النهائية",), ("الخيار", "خيار"), "و",
      ("أو",), comma="،", native=("أ", "ب", "ج", "د", "هـ", "و"))
_more("hi", ("उत्तर", "जवाब"), ("अंतिम उत्तर",), ("विकल्प",), "और", ("या",), full_stop="।",
      native=_DEVANAGARI)
_more("mr", ("उत्तर",), ("अंतिम उत्तर",), ("पर्याय",), "आणि", ("किंवा",), full_stop="।",
      native=_DEVANAGARI)
_more("ne", ("उत्तर", "जवाफ"), ("अन्तिम उत्तर",), ("विकल्प",), "र", ("वा",), full_stop="।")
_more("bn", ("উত্তর",), ("চূড়ান্ত উত্তর",), ("বিকল্প",), "এবং", ("বা",), full_stop="।",
      native=("ক", "খ", "গ", "ঘ", "ঙ", "চ"))
_more("gu", ("જવાબ",), ("અંતિમ જવાબ",), ("વિકલ્પ",), "અને", ("અથવા",), full_stop="।",
      native=("અ", "આ", "ઇ", "ઈ", "ઉ", "ઊ"))
_more("pa", ("ਜਵਾਬ", "ਉੱਤਰ"), ("ਅੰਤਿਮ ਜਵਾਬ",), ("ਵਿਕਲਪ",), "ਅਤੇ", ("ਜਾਂ",), full_stop="।")
_more("ta", ("பதில்", "விடை"), ("இறுதி பதில்",), ("தேர்வு",), "மற்றும்", ("அல்லது",))
_more("te", ("జవాబు", "సమాధానం"), ("చివరి జవాబు",), ("ఎంపిక",), "మరియు", ("లేదా",),
      native=("ఎ", "బి", "సి", "డి", "ఇ"))
_more("ur", ("جواب",), ("حتمی جواب",), ("اختیار",), "اور", ("یا",), full_stop="۔", comma="،")
_more("fa", ("پاسخ", "جواب"), ("پاسخ نهایی",), ("گزینه",), "و", ("یا",), comma="،")
_more("he", ("התשובה", "תשובה"), ("התשובה הסופית",), ("אפשרות",), "ו", ("או",))
_more("tr", ("cevap", "yanıt"), ("son cevap", "nihai cevap"), ("seçenek", "şık"), "ve",
      ("veya", "ya da"))
_more("az", ("cavab",), ("son cavab",), ("variant",), "və", ("və ya",))
_more("uz", ("javob",), ("yakuniy javob",), ("variant",), "va", ("yoki",))
_more("kk", ("жауап",), ("соңғы жауап",), ("нұсқа",), "және", ("немесе",), native=_CYRILLIC)
_more("ru", ("ответ",), ("окончательный ответ", "итоговый ответ"), ("вариант",), "и", ("или",),
      native=_CYRILLIC)
_more("uk", ("відповідь",), ("остаточна відповідь",), ("варіант",), "і", ("або",),
      native=_CYRILLIC)
_more("be", ("адказ",), ("канчатковы адказ",), ("варыянт",), "і", ("або",), native=_CYRILLIC)
_more("bg", ("отговор",), ("окончателен отговор",), ("вариант",), "и", ("или",),
      native=_CYRILLIC)
_more("sr", ("одговор", "odgovor"), ("коначан одговор", "konačan odgovor"), ("опција", "opcija"),
      "и", ("или", "ili"))
_more("mk", ("одговор",), ("конечен одговор",), ("опција",), "и", ("или",))
_more("hr", ("odgovor",), ("konačni odgovor", "konačan odgovor"), ("opcija",), "i", ("ili",))
_more("bs", ("odgovor",), ("konačni odgovor",), ("opcija",), "i", ("ili",))
_more("sl", ("odgovor",), ("končni odgovor",), ("možnost",), "in", ("ali",))
_more("cs", ("odpověď", "odpoved"), ("konečná odpověď",), ("možnost",), "a", ("nebo",))
_more("sk", ("odpoveď", "odpoved"), ("konečná odpoveď",), ("možnosť",), "a", ("alebo",))
_more("pl", ("odpowiedź", "odpowiedz"), ("ostateczna odpowiedź",), ("opcja", "wariant"), "i",
      ("lub", "albo"))
_more("nl", ("antwoord",), ("eindantwoord", "definitieve antwoord"), ("optie", "keuze"), "en",
      ("of",))
_more("af", ("antwoord",), ("finale antwoord",), ("opsie",), "en", ("of",))
_more("sv", ("svaret", "svar"), ("slutligt svar",), ("alternativ",), "och", ("eller",))
_more("da", ("svaret", "svar"), ("endeligt svar",), ("mulighed", "valgmulighed"), "og", ("eller",))
_more("no", ("svaret", "svar"), ("endelig svar", "endelige svar"), ("alternativ",), "og",
      ("eller",))
_more("is", ("svarið", "svar"), ("lokasvar",), ("valkostur",), "og", ("eða",))
_more("fi", ("vastaus",), ("lopullinen vastaus",), ("vaihtoehto",), "ja", ("tai",))
_more("et", ("vastus",), ("lõplik vastus",), ("valik",), "ja", ("või",))
_more("lv", ("atbilde",), ("galīgā atbilde",), ("variants",), "un", ("vai",))
_more("lt", ("atsakymas",), ("galutinis atsakymas",), ("variantas",), "ir", ("arba",))
_more("hu", ("válasz",), ("végső válasz",), ("opció", "lehetőség"), "és", ("vagy",))
_more("ro", ("răspunsul", "răspuns", "raspuns"), ("răspunsul final",), ("opțiunea", "varianta"),
      "și", ("sau",))
_more("el", ("απάντηση",), ("τελική απάντηση",), ("επιλογή",), "και", ("ή",))
_more("ca", ("resposta",), ("resposta final",), ("opció",), "i", ("o",))
_more("gl", ("resposta",), ("resposta final",), ("opción",), "e", ("ou",))
_more("eu", ("erantzuna",), ("azken erantzuna",), ("aukera",), "eta", ("edo",))
_more("id", ("jawabannya", "jawaban"), ("jawaban akhir",), ("pilihan", "opsi"), "dan", ("atau",))
_more("ms", ("jawapannya", "jawapan", "jawaban"), ("jawapan akhir",), ("pilihan",), "dan",
      ("atau",))
_more("tl", ("sagot",), ("huling sagot",), ("pagpipilian",), "at", ("o",))
_more("vi", ("đáp án", "câu trả lời", "trả lời"), ("đáp án cuối cùng",), ("lựa chọn", "phương án"),
      "và", ("hoặc",))
_more("sw", ("jibu",), ("jibu la mwisho",), ("chaguo",), "na", ("au",))
# Korean and Thai glue particles to the answer ("정답은 A입니다"), so letters are delimited
# by script rather than by spaces, as for Chinese and Japanese.
_more("ko", ("정답", "답변", "답"), ("최종 답", "최종 정답"), ("선택지", "보기"), "및", ("또는",),
      space="")
_more("th", ("คำตอบ",), ("คำตอบสุดท้าย",), ("ตัวเลือก",), "และ", ("หรือ",), space="",
      native=("๑", "๒", "๓", "๔", "๕", "๖"))
# fmt: on

_LANGUAGE_ALIASES = {
    "english": "en", "eng": "en",
    "french": "fr", "fra": "fr", "fre": "fr", "français": "fr", "francais": "fr",
    "chinese": "zh", "zho": "zh", "chi": "zh", "cmn": "zh", "zh-cn": "zh", "zh-hans": "zh",
    "zh-tw": "zh", "zh-hant": "zh", "中文": "zh",
    "german": "de", "deu": "de", "ger": "de",
    "spanish": "es", "spa": "es",
    "italian": "it", "ita": "it",
    "portuguese": "pt", "por": "pt",
    "russian": "ru", "rus": "ru",
    "japanese": "ja", "jpn": "ja",
    "arabic": "ar", "ara": "ar", "arb": "ar", "modern standard arabic": "ar",
    "hindi": "hi", "hin": "hi", "marathi": "mr", "mar": "mr", "nepali": "ne", "nep": "ne",
    "bengali": "bn", "ben": "bn", "gujarati": "gu", "guj": "gu",
    "punjabi": "pa", "pan": "pa", "eastern panjabi": "pa", "tamil": "ta", "tam": "ta",
    "telugu": "te", "tel": "te", "urdu": "ur", "urd": "ur",
    "persian": "fa", "fas": "fa", "per": "fa", "pes": "fa", "western persian": "fa", "farsi": "fa",
    "hebrew": "he", "heb": "he", "iw": "he",
    "turkish": "tr", "tur": "tr", "azerbaijani": "az", "aze": "az", "azj": "az",
    "north azerbaijani": "az", "uzbek": "uz", "uzb": "uz", "uzn": "uz", "northern uzbek": "uz",
    "kazakh": "kk", "kaz": "kk",
    "ukrainian": "uk", "ukr": "uk", "belarusian": "be", "bel": "be",
    "bulgarian": "bg", "bul": "bg", "serbian": "sr", "srp": "sr", "macedonian": "mk", "mkd": "mk",
    "croatian": "hr", "hrv": "hr", "bosnian": "bs", "bos": "bs", "slovenian": "sl", "slv": "sl",
    "czech": "cs", "ces": "cs", "cze": "cs", "slovak": "sk", "slk": "sk", "slo": "sk",
    "polish": "pl", "pol": "pl", "dutch": "nl", "nld": "nl", "dut": "nl",
    "afrikaans": "af", "afr": "af", "swedish": "sv", "swe": "sv", "danish": "da", "dan": "da",
    "norwegian": "no", "nor": "no", "nb": "no", "nob": "no", "norwegian bokmal": "no",
    "nn": "no", "nno": "no", "norwegian nynorsk": "no",
    "icelandic": "is", "isl": "is", "ice": "is",
    "finnish": "fi", "fin": "fi", "estonian": "et", "est": "et",
    "latvian": "lv", "lav": "lv", "lvs": "lv", "standard latvian": "lv",
    "lithuanian": "lt", "lit": "lt", "hungarian": "hu", "hun": "hu",
    "romanian": "ro", "ron": "ro", "rum": "ro", "greek": "el", "ell": "el", "gre": "el",
    "catalan": "ca", "cat": "ca", "galician": "gl", "glg": "gl", "basque": "eu", "eus": "eu",
    "baq": "eu", "indonesian": "id", "ind": "id", "malay": "ms", "msa": "ms", "may": "ms",
    "zsm": "ms", "standard malay": "ms", "tagalog": "tl", "tgl": "tl", "filipino": "tl",
    "fil": "tl", "vietnamese": "vi", "vie": "vi", "swahili": "sw", "swa": "sw", "swh": "sw",
    "korean": "ko", "kor": "ko", "thai": "th", "tha": "th",
}  # fmt: skip


def resolve_language(language: str) -> Lang:
    """Return the table for ``language`` (ISO 639-1/-3 code or English name); ValueError if unknown."""
    key = str(language).strip().lower().replace("_", " ")
    key = _LANGUAGE_ALIASES.get(key, key)
    if key not in LANGUAGES and "-" in key:  # "fr-CA", "pt-BR"
        key = _LANGUAGE_ALIASES.get(key.split("-")[0], key.split("-")[0])
    if key not in LANGUAGES:
        raise ValueError(
            f"unsupported language {language!r}; supported: {', '.join(sorted(LANGUAGES))}"
        )
    return LANGUAGES[key]


def _alt(words: tuple[str, ...]) -> str:
    return "|".join(re.escape(w) for w in words)


def _answer_word(lang: Lang) -> str:
    words = LANGUAGES["en"].answer + tuple(w for w in lang.answer if w != "answer")
    return f"(?i:{_alt(words)})"


def _colon(lang: Lang) -> str:
    return f"[{re.escape(lang.colon)}:]"


def _final_answer_patterns(lang: Lang, target: str, *, just_is_space: str) -> list[tuple[str, int]]:
    """``final answer is X`` (priority 0 with "I hope", 50 otherwise), English first."""
    out = [
        (rf"(?i:final answer is)\:?\s*{target}\.?\s?I hope", 0),
        (rf"(?i:final answer.{{0,100}}?)\s+is\:?{just_is_space}{target}", 50),
    ]
    if lang.code != "en":
        # Localised "final answer": any text up to a colon or a copula is too
        # language-specific, so allow a short gap instead.
        fa = f"(?i:{_alt(lang.final_answer)})"
        out.append((rf"{fa}.{{0,30}}?{_colon(lang)}?\s*{target}", 50))
    return out


# --- LaTeX -----------------------------------------------------------------


def _latex_env(prefix: str = "", context: str = "plain") -> str:
    """LaTeX environments ($...$, $$...$$, \\(...\\), \\[...\\], [ ... ], bare \\frac{a}{b}) + optional percent."""
    percent = rf"(?P<{prefix}percent>(?:\\?%|[Pp]ercent|[Pp]ercentage|[Pp]ct))"
    dd = r"(?:[^$]|\$(?!\$))"
    db = r"(?:[^\\]|\\(?!\]))"
    idl = r"(?:\\[$]|[^\n$])"
    ip = r"(?:[^\\\n]|\\(?!\)))"
    ib = r"[^\n\]\[]"
    if context == "boxed":
        dd, db, idl, ip, ib = (rf"{c}*?\\boxed{{{c}+?}}{c}*?" for c in (dd, db, idl, ip, ib))
    else:
        dd, db, idl, ip, ib = (rf"{c}+?" for c in (dd, db, idl, ip, ib))
    patterns = [
        rf"(?<!\\)\$\$(?P<{prefix}latexDisplayDollar>{dd})(?<!\\)\$\$",
        rf"(?<!\\)\\\[(?P<{prefix}latexDisplayBracket>{db})(?<!\\)\\\]",
        rf"(?<!\\|\d)\$(?P<{prefix}latexInlineDollar>{idl})(?<!\\)\$",
        rf"(?<!\\)\\\((?P<{prefix}latexInlineParenthesis>{ip})(?<!\\)\\\)",
        rf"\s\[(?P<{prefix}latexInlineBracket>{ib})\]\s",
    ]
    if context == "plain":
        num = r"-?\d+(?:[.,]\d+)?"
        patterns.append(rf"(?P<{prefix}latexFraction>-?\\frac{{{num}}}{{{num}}})")
    return rf"(?:(?:{'|'.join(patterns)})\s*{percent}?)"


@lru_cache(maxsize=32)
def latex_patterns(lang_code: str, boxed_priority: int, with_anchorless: bool = True) -> Patterns:
    """Patterns for LaTeX answers; ``boxed_priority`` < 0 disables \\boxed matching."""
    lang = LANGUAGES[lang_code]
    joiners = (
        ",?and|,?or|,"
        if lang.code == "en"
        else f"{_alt(lang.and_words)}|{_alt(lang.or_words)}|,?and|,?or|,"
    )
    first = _latex_env("first_")
    nxt = "".join(rf"(?:\s*(?:{joiners})\s*{_latex_env(f'next{i}_')})?" for i in range(1, 6))
    envs = rf"(?:{first}{nxt})"
    answer = _answer_word(lang)
    regexes = _final_answer_patterns(lang, envs, just_is_space=r"\s*")
    regexes += [
        (f"{answer}{_colon(lang)}.{{0,50}}?{envs}", 100),
        (f"{answer}.{{0,50}}?{envs}", 200),
    ]
    if with_anchorless:
        regexes.append((envs, 300))
    if boxed_priority >= 0:
        boxed = _latex_env("first_", "boxed") + "".join(
            rf"\s*(?:\s*(?:{joiners})\s*{_latex_env(f'next{i}_', 'boxed')})?" for i in range(1, 6)
        )
        regexes.append((boxed, boxed_priority))
        # A bare \boxed{...} whose end is found later by brace matching.
        regexes.append((r"(?P<first_latexBoxed>\\boxed{.+})", boxed_priority))
    return tuple((re.compile(p, re.DOTALL), prio) for p, prio in regexes)


# --- plain expressions -------------------------------------------------------

# A mixed number: a whole part (digits, or thousands grouped by single spaces as in
# "1 000"), then spaces or tabs -- never a line break: "11\n5/6" is two lines, not 11 5/6 --
# then an integer fraction. Not glued to a preceding digit, point, slash, letter or power
# ("11/10 4/9", "11.0 4/9", "x^2 3/4" are not mixed numbers), nor followed by more digits
# of the fraction.
MIXED_NUMBER = (
    r"(?<![A-Za-z0-9_.,/^])(?P<mixed>[-+]?(?:[1-9]\d{0,2}(?: \d{3})+|\d+)[ \t]+\d+[ \t]*/[ \t]*\d+)"
    r"(?![\d/]|[.,]\d)"
)
_MIXED_PERCENT = r"[ \t]*(?:%|[Pp]ercentage|[Pp]ercent|[Pp]ct)(?![A-Za-z])"
MIXED_NUMBER_RE = re.compile(MIXED_NUMBER)

_CURRENCY = re.escape("$€£¥₹₽₪₩₫฿₡₢₣₤₥₦₧₨₭₮₯₰₱₲₳₴₵₶₷₸₺₻₼₾₿")


@lru_cache(maxsize=16)
def expr_patterns(lang_code: str, with_anchorless: bool = True) -> Patterns:
    """Patterns for plain numbers (1,000 / 0.5 / 50% / $12) and operator expressions (1/2, 2^10, 3 1/2)."""
    lang = LANGUAGES[lang_code]
    number = (
        r"(?<!\d)(?:"
        r"(?P<integer1>-?[1-9]\d{0,2}(?:[ ,]\d{3})+)(?P<decimal1>\.\d+)?|"
        r"(?P<integer2>-?\d+)(?P<decimal2>[.,]\d+)(?:[eE](?P<exponent>[-+]?\d{1,3})(?![\d.]))?|"
        r"(?P<decimal3>\.\d+)|"
        r"(?P<integer3>-?\d+)"
        r")(?P<percent>\s*(?:%|[Pp]ercent|\s*[Pp]ercentage|\s*[Pp]ct))?"
    )
    ops = r"\+\-\*\×\/\^\(\)\÷"
    chars = rf"[\d\.\s{ops}]"
    expr = rf"(?P<expr>-?\(?-?\d{chars}*[{ops}]{chars}+\)?)"
    # A mixed number ("4 4/9", "+11 5/6", "1 000 4/9 %") is one value; tried before the
    # general expression so that a percent after it applies to the whole number.
    mixed = rf"{MIXED_NUMBER}(?P<mixed_percent>{_MIXED_PERCENT})?"
    stop = f"[{re.escape(lang.full_stop)}.]"
    comma = f"[{re.escape(lang.comma)},]"
    space = r"\s" if lang.space == " " else r"(?:\s|)"
    prefix = rf"(?:^|{space}|\=)(?:\*\*)?"
    suffix = rf"(?:\*\*)?(?:{stop}|{comma}|\s?{_colon(lang)}|{space}|\)|\$|$)"
    with_anchors = rf"(?:{prefix}{expr}{suffix})"
    number_anchored = rf"(?:{prefix}[{_CURRENCY}]?{number})"
    mixed_anchored = rf"(?:{prefix}{mixed})"
    either = rf"(?:{mixed_anchored}|{with_anchors}|{number_anchored})"
    answer = _answer_word(lang)
    regexes = _final_answer_patterns(lang, either, just_is_space="")
    regexes += [
        (rf"{answer}{_colon(lang)}(?:.{{0,100}}=\s*|.{{0,50}}?){either}(?!\s*=)", 100),
        (rf"{answer}(?:.{{0,100}}=\s*|.{{0,50}}?){either}(?!\s*=)", 200),
    ]
    if with_anchorless:
        regexes += [(mixed_anchored, 300), (with_anchors, 300), (number_anchored, 300)]
    return tuple((re.compile(p), prio) for p, prio in regexes)


# --- multiple choice -----------------------------------------------------------


@lru_cache(maxsize=64)
def index_patterns(
    lang_code: str, n_choices: int, boxed_priority: int = 50, with_anchorless: bool = True
) -> Patterns:
    """Patterns for choice letters: ``A``, ``(B)``, ``**C**``, ``Answer: D``, ``答案是C``."""
    lang = LANGUAGES[lang_code]
    letters = lang.letters[: max(1, n_choices)]
    # "(c)" in lower case is a choice too; a bare lower-case "a" is an article.
    keys = "|".join(rf"{c}|\({c}\)|\[{c}\]|\({c.lower()}\)" for c in letters)
    native = sorted(lang.native[: max(1, n_choices)], key=len, reverse=True)
    if native:
        keys += "|" + "|".join(rf"{re.escape(c)}|\({re.escape(c)}\)" for c in native)
    key = f"(?P<indices>{keys})"
    stop = f"[{re.escape(lang.full_stop)}.]"
    comma = f"[{re.escape(lang.comma)},]"
    colon = _colon(lang)
    space = r"\s" if lang.space == " " else r"(?:\s|)"
    # Letters glued to Latin words ("DNA", "Ask") are never answers; CJK text has no spaces.
    pre = r"(?:^|\s)(?:\*\*)?" if lang.space == " " else r"(?<![A-Za-z])(?:\*\*)?"
    suf = rf"(?:\*\*)?(?:{stop}|{comma}|\s?{colon}|{space}|\)|！|!|\?|？|$)"
    if lang.space != " ":
        suf = r"(?![A-Za-z])(?:\*\*)?"
    ans = f"{pre}{key}{suf}"
    answer = _answer_word(lang)
    choice_words = LANGUAGES["en"].choice + tuple(
        w for w in lang.choice if w not in ("option", "choice")
    )
    choice = f"(?i:{_alt(choice_words)})"
    regexes = _final_answer_patterns(lang, key, just_is_space=r"\s*")
    regexes += [
        (rf"{answer}\s?{colon}.{{0,50}}?{ans}", 100),
        (rf"{answer}.{{0,50}}?{ans}", 150),
        (rf"{choice}.{{0,20}}?{ans}", 160),
        # A letter opening the text or a line ("C. Cecile"); the last such line wins.
        (rf"(?:^|\n)(?:\*\*)?{key}{suf}", 200),
    ]
    if boxed_priority >= 0:
        # \boxed{C}, \boxed{\text{(C)}}, \boxed{\textbf{C}}
        boxed = rf"\\boxed\{{\s*(?:\\text(?:bf)?\{{\s*)?{key}\s*\}}?\s*\}}?"
        regexes.append((boxed, boxed_priority))
    if with_anchorless:
        regexes += [(ans, 250)]
    return tuple((re.compile(p), prio) for p, prio in regexes)


# --- literal strings (math-verify's StringExtractionConfig) --------------------


@lru_cache(maxsize=16)
def string_patterns(strings: tuple[str, ...], with_anchorless: bool = True) -> Patterns:
    """Patterns for a fixed set of literal strings (default A-D), as math-verify's string target."""
    keys = f"(?P<string_keys>{'|'.join(re.escape(s) for s in strings)})"
    pre = r"(^|\s)(?:\*\*)?"
    suf = r"(?:\*\*)?(?:\.|,|:|\s|$)"
    ans = f"{pre}{keys}{suf}"
    regexes = [
        (rf"(?i:final answer is)\:?\s*{keys}\.?\s?I hope", 0),
        (rf"(?i:final answer.{{0,100}}?)\s+is\:?\s*{keys}", 50),
        (f"(?i:answer):.{{0,50}}?{ans}", 100),
        (f"(?i:answer).{{0,50}}?{ans}", 200),
    ]
    if with_anchorless:
        regexes += [(rf"^(?:\*\*)?{keys}{suf}", 250), (ans, 300)]
    return tuple((re.compile(p), prio) for p, prio in regexes)


# --- Unicode maths ---------------------------------------------------------------

_UNICODE_LATEX = {
    "√": r"\sqrt",
    "∛": r"\sqrt[3]",
    "π": r"\pi ",
    "∞": r"\infty ",
    "≤": r"\le ",
    "⩽": r"\le ",
    "≥": r"\ge ",
    "⩾": r"\ge ",
    "≠": r"\neq ",
    "×": r"\times ",
    "÷": r"\div ",
    "·": r"\cdot ",
    "⋅": r"\cdot ",
    "−": "-",
    "–": "-",
    "±": r"\pm ",
    "∪": r"\cup ",
    "∩": r"\cap ",
    "∈": r"\in ",
    "°": r"^{\circ}",
    "²": "^{2}",
    "³": "^{3}",
    "½": r"\frac{1}{2}",
    "¼": r"\frac{1}{4}",
    "¾": r"\frac{3}{4}",
    "θ": r"\theta ",
    "α": r"\alpha ",
    "β": r"\beta ",
}
_UNICODE_RE = re.compile("|".join(re.escape(k) for k in _UNICODE_LATEX))
_LATEX_ENV_RE = re.compile(r"\$|\\\(|\\\[|\\boxed|\\fbox")
# A run of maths in plain text: numbers, single-letter variables, operators and
# the Unicode symbols above; words of two or more letters end the run.
_PLAIN_RUN_RE = re.compile(
    r"(?:(?<![A-Za-z])[A-Za-z](?![A-Za-z])|\d+(?:[.,]\d+)*|[+\-*/^()\[\]=<>{},]|[ \t]|"
    + "|".join(re.escape(k) for k in _UNICODE_LATEX)
    + ")+"
)


def unicode_to_latex(text: str) -> str:
    """Turn Unicode maths (√2, π, ≤, ∞, ×) into LaTeX.

    In text without any LaTeX environment, a run of maths containing such a
    symbol ("x ≤ 3", "2√3") is also wrapped in ``$...$`` so the LaTeX patterns
    see it; inside LaTeX only the symbols are replaced.
    """
    if not _UNICODE_RE.search(text):
        return text
    if not _LATEX_ENV_RE.search(text):

        def wrap(m: re.Match[str]) -> str:
            run = m.group(0)
            if not _UNICODE_RE.search(run):
                return run
            core = run.strip(" \t,")
            lead = run[: run.index(core)] if core else run
            tail = run[len(lead) + len(core) :]
            return f"{lead}${_translate(core)}${tail}" if core else run

        return _PLAIN_RUN_RE.sub(wrap, text)
    return _translate(text)


def _translate(text: str) -> str:
    def sub(m: re.Match[str]) -> str:
        return _UNICODE_LATEX[m.group(0)]

    out = _UNICODE_RE.sub(sub, text)
    # √2 -> \sqrt2 is handled by the malformed-operator repair; √(x+1) needs braces.
    return re.sub(r"\\sqrt(\[3\])?\(([^()]*)\)", r"\\sqrt\1{\2}", out)
