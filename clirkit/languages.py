"""Language codes clirkit accepts: ISO 639-1 (two letters), as the Moses tokenizer and ir_datasets name
languages, and those the Snowball project has a stemmer and a stopword list for. Kept free of heavy imports: the
command-line parser validates options with it."""

from __future__ import annotations

import re

ISO_639_1 = frozenset(
    """
aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz
ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik
io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml
mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd
se sg si sk sl sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi
vo wa wo xh yi yo za zh zu
""".split()
)


def check_language(code: str) -> str:
    """``code`` if it is an ISO 639-1 language code; ValueError naming the code otherwise."""
    if not isinstance(code, str) or code not in ISO_639_1:
        raise ValueError(f"{code!r} is not an ISO 639-1 language code (two lowercase letters, such as en, es, de)")
    return code


# ISO 639-1 -> the name of its Snowball stemmer (PyStemmer) and stopword list (clirkit/resources/stopwords)
SNOWBALL_STEMMERS = {
    "ar": "arabic",
    "ca": "catalan",
    "cs": "czech",
    "da": "danish",
    "de": "german",
    "el": "greek",
    "en": "english",
    "eo": "esperanto",
    "es": "spanish",
    "et": "estonian",
    "eu": "basque",
    "fa": "persian",
    "fi": "finnish",
    "fr": "french",
    "ga": "irish",
    "hi": "hindi",
    "hu": "hungarian",
    "hy": "armenian",
    "id": "indonesian",
    "it": "italian",
    "lt": "lithuanian",
    "nb": "norwegian",
    "ne": "nepali",
    "nl": "dutch",
    "no": "norwegian",
    "pl": "polish",
    "pt": "portuguese",
    "ro": "romanian",
    "ru": "russian",
    "sr": "serbian",
    "st": "sesotho",
    "sv": "swedish",
    "ta": "tamil",
    "tr": "turkish",
    "yi": "yiddish",
}
SNOWBALL_STOPWORDS = frozenset(
    {"da", "de", "en", "es", "fi", "fr", "ga", "hu", "id", "it", "nb", "nl", "no", "pt", "ru", "st", "sv"}
)

# A language's English name (and a few own names), lower case -> its ISO 639-1 code, as topic files declare them
# (<topic lang="spanish">)
LANGUAGE_NAMES = {
    **{name: code for code, name in SNOWBALL_STEMMERS.items() if code != "nb"},
    "bengali": "bn",
    "bulgarian": "bg",
    "castilian": "es",
    "chinese": "zh",
    "croatian": "hr",
    "farsi": "fa",
    "hebrew": "he",
    "icelandic": "is",
    "japanese": "ja",
    "korean": "ko",
    "latvian": "lv",
    "malay": "ms",
    "mandarin": "zh",
    "slovak": "sk",
    "slovenian": "sl",
    "swahili": "sw",
    "tagalog": "tl",
    "thai": "th",
    "ukrainian": "uk",
    "urdu": "ur",
    "vietnamese": "vi",
    "castellano": "es",
    "español": "es",
    "espanol": "es",
    "deutsch": "de",
    "français": "fr",
    "francais": "fr",
    "italiano": "it",
    "português": "pt",
    "nederlands": "nl",
    "русский": "ru",
    "中文": "zh",
    "日本語": "ja",
    "한국어": "ko",
}


def declared_language(value: str) -> str | None:
    """The lower-case language code a file's declaration ``value`` names: a code (``es``, ``spa``), also with a
    region or script (``es-ES``, ``zh_Hans``), or a language's name (``Spanish``, ``Chinese (Simplified)``); None
    for a value it cannot read (``spanglish``, two languages' names, ``1``)."""
    low = value.strip().lower()
    code = re.fullmatch(r"([a-z]{2,3})(?:[-_][a-z0-9]+)*", low)
    if code:
        return code.group(1)
    named = {LANGUAGE_NAMES[w] for w in re.findall(r"[^\W\d_]+", low) if w in LANGUAGE_NAMES}
    return named.pop() if len(named) == 1 else None
