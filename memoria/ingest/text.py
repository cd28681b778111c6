"""The offline extractors' shared reading of English text: tokens, sentences, word classes, name keys and lemmas.

Entity extraction, fact extraction and entity resolution must agree on what a word is
and when two names are the same, so those rules live here once.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cache


def word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _forms(text: str) -> dict[str, str]:
    """Read "lemma:form,form" entries into form → lemma."""
    pairs = (entry.split(":", 1) for entry in text.split())
    return {form: lemma for lemma, forms in pairs for form in forms.split(",")}


# Adjectives that say how something is, never what it is: not entities, but words of a relation ("proud_of").
COMMON_ADJECTIVES = word_set(
    """awesome great good nice cool amazing fantastic wonderful incredible lovely beautiful glad happy sad sure fine
    fun exciting excited tough hard easy important new old big small little proud grateful thankful sorry tired
    busy ready lucky hopeful optimistic nervous worried scared afraid interested curious stressed kind sweet cute
    brave strong close fond keen aware full free safe special long rewarding fulfilling inspiring worth plus
    others passionate favorite favourite far"""
)
# Function words: never part of an entity name, never a fact's relation on their own.
STOPWORDS = (
    word_set(
        """a an the this that these those some any each every all both either neither no nor not none
    i me my mine myself we us our ours ourselves you your yours yourself yourselves he him his himself she her hers
    herself it its itself they them their theirs themselves one ones someone somebody something anyone anybody
    anything everyone everybody everything nobody nothing who whom whose which what whatever whoever where when
    why how and or but if then else so because as than though although while whereas unless until since
    of in on at by for with without about against between into through during before after above below to from
    up down out off over under again further once here there also too very just only even still already yet
    really quite rather pretty almost always never often sometimes usually ever soon later now today tonight
    yesterday tomorrow maybe perhaps probably definitely actually basically literally totally truly seriously
    especially finally recently lately currently anyway anyways instead else otherwise together apart away
    back around along across upon within toward towards via per like unlike near beside besides among amongst
    am is are was were be been being have has had having do does did doing done will would shall should can
    could may might must ought need dare gonna wanna gotta let lets let's
    i'm i've i'd i'll you're you've you'd you'll he's she's it's we're we've we'd we'll they're they've they'd
    they'll that's there's here's what's who's where's how's isn't aren't wasn't weren't don't doesn't didn't
    haven't hasn't hadn't won't wouldn't can't cannot couldn't shouldn't mustn't mightn't ain't 's 're 've 'd 'll 'm
    oh ah hey hi hello wow yeah yep yes nope ok okay alright hmm haha lol omg thanks thank please sorry congrats
    congratulations welcome bye goodbye cheers super lot lots much many more most less least few several enough
    own other another same such different whole certain able bit sort way thing things stuff time times day days
    week weeks month months year years moment moments part while first second last next best better worse worst
    well right wrong true real totally gonna longer anymore"""
    )
    | COMMON_ADJECTIVES
)
# Words that make a clause a denial of what it states.
NEGATIONS = word_set("not no never n't don't doesn't didn't isn't aren't wasn't weren't won't cannot can't couldn't")
FIRST_PERSON = word_set("i me my mine myself we us our ours ourselves i'm i've i'd i'll we're we've we'd we'll")
SECOND_PERSON = word_set("you your yours yourself yourselves you're you've you'd you'll")
PREPOSITIONS = word_set(
    "of in on at by for with about against between into through during before after above below to from up down "
    "over under near inside outside onto toward towards via among within without across behind beyond beside"
)
DETERMINERS = word_set("a an the this that these those my your his her its our their some any each every no")
# Leading words that do not make a name different: "the Riverside Centre", "Dr. Goodall".
NAME_PREFIXES = word_set("the a an my our your his her their dr mr mrs ms prof")
# Abbreviations that end with a dot without ending the sentence.
ABBREVIATIONS = word_set("mr mrs ms dr prof st jr sr inc ltd co corp vs etc e.g i.e approx dept no mt ft")

# Common verbs, as lemmas: their inflected forms are generated below so lemmas come out exact.
VERB_LEMMAS = word_set(
    """be have do say go get make know think take see come want look use find give tell work call try ask need
    feel become leave put mean keep let begin seem help talk turn start show hear play run move like live believe
    hold bring happen write provide sit stand lose pay meet include continue set learn change lead understand
    watch follow stop create speak read allow add spend grow open walk win offer remember love consider appear
    buy wait serve die send expect build stay fall cut reach remain suggest raise pass sell require report decide
    pull return explain hope develop carry break receive agree support hit produce eat cover catch draw choose
    cause point listen realize realise place close involve increase enjoy visit travel paint cook bake hike swim
    dance sing teach study adopt join attend celebrate plan share post prefer hate miss marry date ship order
    deliver delay fix install deploy upgrade release launch fail crash restart manage own found host organize
    organise volunteer graduate retire hire fire quit resign relocate reside base locate belong contain consist
    depend affect inspire motivate encourage trigger prevent result cost weigh schedule cancel postpone book
    rent borrow lend save invest owe afford feed recommend review rate test check update replace remove sign
    register apply complete finish end stock supply forecast estimate predict track monitor block resolve relate
    connect compare discuss mention describe note notice wonder worry care thank invite chat text email message
    drive ride fly sail climb camp fish hunt garden knit sew photograph film record perform practice practise
    train exercise compete race score beat wear hang lie speak wake forget shoot sleep think bring fight throw
    sink drink ring swing stick strike cost split spread bet bid burst hurt shut upset prepare reduce sound
    smell taste research explore search focus struggle handle improve coach mentor express accept adapt achieve
    admire appreciate avoid blog browse collect complain decorate design discover donate edit escape gather guess
    hug imagine laugh nurture pack pick pray pretend promise protect recover reflect refuse relax rely repair
    rescue respect rest skate ski smile surf surprise survive trust vote wander wash waste wish trek earn dream
    remind"""
)
# Irregular verb forms, as "lemma:form,form".
IRREGULAR_FORMS = _forms(
    """be:am,is,are,was,were,been,being,'s,'re,'m,i'm,you're,we're,they're,he's,she's,it's,that's
    have:has,had,'ve,i've,you've,we've,they've do:does,did,done go:went,gone,goes
    make:made know:knew,known think:thought take:took,taken see:saw,seen come:came give:gave,given
    tell:told say:said,says find:found get:got,gotten feel:felt become:became leave:left mean:meant
    keep:kept begin:began,begun hear:heard run:ran hold:held bring:brought write:wrote,written sit:sat
    stand:stood lose:lost pay:paid meet:met lead:led understand:understood speak:spoke,spoken
    spend:spent grow:grew,grown win:won buy:bought send:sent build:built fall:fell,fallen sell:sold
    break:broke,broken eat:ate,eaten catch:caught draw:drew,drawn choose:chose,chosen teach:taught
    fly:flew,flown drive:drove,driven ride:rode,ridden swim:swam sing:sang,sung wear:wore,worn hang:hung
    lie:lay wake:woke,woken forget:forgot,forgotten shoot:shot sleep:slept fight:fought
    throw:threw,thrown sink:sank drink:drank ring:rang swing:swung stick:stuck strike:struck feed:fed
    lend:lent deal:dealt"""
)
# Abstract nouns: true nouns, but alone they name nothing a memory is about ("had a blast", "makes a difference").
ABSTRACT_NOUNS = word_set(
    """life love joy difference blast way experience feeling person world impact passion progress word memory hope
    peace happiness kindness courage strength advice help support fun reminder sense lot"""
)
# Nouns that name events, and nouns that name data sources: the two entity kinds text reveals by itself.
EVENT_NOUNS = word_set(
    """party meeting conference wedding concert festival trip race marathon game match workshop session ceremony
    parade holiday vacation birthday interview appointment launch release outage incident delay strike
    celebration event reunion exhibition show performance tournament competition class seminar webinar
    hackathon retreat fundraiser gala graduation funeral recital rally protest march camp camping"""
)
DATA_SOURCE_NOUNS = word_set(
    """dataset database table spreadsheet report feed api log logs dashboard survey sheet csv index catalog
    catalogue ledger inventory forecast export"""
)
# Heads that make a capitalised name a thing or a place, not a person ("Berlin Marathon", "Kestrel Foods").
NAME_HEAD_NOUNS = (
    EVENT_NOUNS
    | DATA_SOURCE_NOUNS
    | word_set(
        """city town village street road avenue river lake mountain park island bay beach airport station hotel
        restaurant cafe bar shop store market mall museum gallery theatre theater cinema stadium hospital clinic
        school college university academy institute centre center library church temple company corp corporation
        inc ltd llc group club team band foundation agency association society council ministry department bank
        food foods labs systems logistics freight motors studio studios press media network"""
    )
)
IRREGULAR_PLURALS = _forms(
    "child:children person:people man:men woman:women foot:feet tooth:teeth mouse:mice goose:geese"
)
UNCOUNTED = word_set("news series species means physics mathematics economics politics lens chess always")

TOKEN = re.compile(
    r"(?:[A-Za-z]\.){2,}"  # initials and dotted acronyms: U.S., J.R.R.
    r"|[$€£]\d[\d,]*(?:\.\d+)?"  # money
    r"|\d[\d,]*(?:\.\d+)?%?"  # numbers
    r"|[A-Za-z0-9]+(?:[-'’][A-Za-z0-9]+)*(?:'s|’s)?"  # words, hyphenated words, possessives, SKUs
    r"|'(?:s|re|ve|d|ll|m)\b"
    r"|[^\sA-Za-z0-9]"
)
SENTENCE_END = re.compile(r"[.!?]+[\"')\]]*(?=\s+|$)|\n+")
SPEAKER_LINE = re.compile(r"^[ \t]*([A-Z][\w'’.-]*(?:[ \t]+[A-Z][\w'’.-]*){0,3})[ \t]*:[ \t]+(?=\S)", re.MULTILINE)
IDENTIFIER = re.compile(r"^(?=[A-Za-z0-9-]*\d)(?=[A-Za-z0-9-]*[A-Za-z])[A-Z0-9][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*$")


@dataclass(frozen=True)
class Token:
    text: str
    start: int
    end: int

    @property
    def lower(self) -> str:
        return self.text.lower().replace("’", "'")

    @property
    def is_word(self) -> bool:
        return self.text[0].isalnum() or self.text[0] in "$€£'"

    @property
    def is_capitalised(self) -> bool:
        return self.text[0].isupper()


@dataclass(frozen=True)
class Sentence:
    text: str
    start: int
    end: int
    speaker: str | None = None


def tokens_of(text: str, offset: int = 0) -> list[Token]:
    return [Token(match.group(), match.start() + offset, match.end() + offset) for match in TOKEN.finditer(text)]


def _ends_with_abbreviation(text: str) -> bool:
    last = text.rstrip(".!?").rsplit(None, 1)[-1].lower() if text.strip() else ""
    return last in ABBREVIATIONS or (len(last) == 1 and last.isalpha())


def sentences_of(text: str, *, speakers: bool = False) -> list[Sentence]:
    """Split on sentence ends and line breaks; with `speakers`, a line "Name: text" lends Name to its sentences."""
    lines: list[tuple[int, int, str | None]] = []
    if speakers and SPEAKER_LINE.search(text):
        marks = list(SPEAKER_LINE.finditer(text))
        if marks[0].start() > 0:
            lines.append((0, marks[0].start(), None))
        for index, mark in enumerate(marks):
            end = marks[index + 1].start() if index + 1 < len(marks) else len(text)
            lines.append((mark.end(), end, mark.group(1)))
    else:
        lines.append((0, len(text), None))
    sentences: list[Sentence] = []
    for line_start, line_end, speaker in lines:
        start = line_start
        for match in SENTENCE_END.finditer(text, line_start, line_end):
            if match.group().startswith(".") and _ends_with_abbreviation(text[start : match.start() + 1]):
                continue
            sentences.extend(_sentence(text, start, match.end(), speaker))
            start = match.end()
        sentences.extend(_sentence(text, start, line_end, speaker))
    return sentences


def _sentence(text: str, start: int, end: int, speaker: str | None) -> list[Sentence]:
    piece = text[start:end]
    stripped = piece.strip()
    if not any(char.isalnum() for char in stripped):
        return []
    leading = len(piece) - len(piece.lstrip())
    return [Sentence(stripped, start + leading, start + leading + len(stripped), speaker)]


def fold(text: str) -> str:
    """Lower case without accents or curly quotes: the form name comparisons start from."""
    if text.isascii():  # nothing to decompose or unquote: most text (ingestion folds every word it reads)
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text.replace("’", "'"))
    return "".join(char for char in decomposed if not unicodedata.combining(char)).lower()


def singular(word: str) -> str:
    """A plural noun's singular by the common English rules; other words unchanged."""
    if word in IRREGULAR_PLURALS:
        return IRREGULAR_PLURALS[word]
    if word in UNCOUNTED or len(word) <= 3 or word.endswith(("ss", "us", "is", "ous")):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "zes", "sses")):
        return word[:-2]
    if word.endswith("s"):
        return word[:-1]
    return word


def name_key(name: str) -> str:
    """Two names with the same key are the same entity: case, accents, punctuation, articles, possessives, plurals.

    "The Support Groups", "support group" and "support-group's" share the key "support group".
    """
    words = re.findall(r"[a-z0-9]+(?:'[a-z]+)?", fold(name).replace("-", " "))
    words = [word[:-2] if word.endswith("'s") else word.replace("'", "") for word in words]
    while words and words[0] in NAME_PREFIXES:
        words = words[1:]
    # A one-word capitalised name is not a plural: "Tomas", "James".
    single_name = len(words) == 1 and name.strip()[-len(words[0]) :][:1].isupper()
    if words and not single_name:
        words[-1] = singular(words[-1])
    return " ".join(words)


def initials(name: str) -> str:
    """The initials of a multi-word name ("International Business Machines" → "ibm"); "" for one word."""
    words = [word for word in re.findall(r"[A-Za-z0-9]+", fold(name)) if word not in ("of", "the", "and", "for")]
    return "".join(word[0] for word in words) if len(words) > 1 else ""


def _inflections(lemma: str) -> list[str]:
    if lemma.endswith("ee"):  # see → seeing
        return [lemma + "s", lemma + "d", lemma + "ing"]
    if lemma.endswith("ie"):  # lie → lying
        return [lemma + "s", lemma + "d", lemma[:-2] + "ying"]
    if lemma.endswith("e"):
        return [lemma + "s", lemma + "d", lemma[:-1] + "ing"]
    if lemma.endswith("y") and lemma[-2:-1] not in ("a", "e", "o", "u"):
        return [lemma[:-1] + "ies", lemma[:-1] + "ied", lemma + "ing"]
    if lemma.endswith(("s", "sh", "ch", "x", "z", "o")):
        return [lemma + "es", lemma + "ed", lemma + "ing"]
    forms = [lemma + "s", lemma + "ed", lemma + "ing"]
    if len(lemma) <= 4 and re.search(r"[^aeiou][aeiou][bdgklmnprt]$", lemma):  # stop → stopped, run → running
        forms += [lemma + lemma[-1] + "ed", lemma + lemma[-1] + "ing"]
    return forms


@cache
def _verb_forms() -> dict[str, str]:
    forms = {lemma: lemma for lemma in VERB_LEMMAS}
    for lemma in VERB_LEMMAS:
        for form in _inflections(lemma):
            forms.setdefault(form, lemma)
    forms.update(IRREGULAR_FORMS)
    return forms


def verb_lemma(word: str) -> str | None:
    """The lemma of a known verb form ("went" → "go"), or a guess for an unknown past tense; None if not a verb."""
    lower = fold(word)
    known = _verb_forms().get(lower)
    if known is not None:
        return known
    if len(lower) > 4 and lower.endswith("ed") and lower not in STOPWORDS:
        stem = lower[:-2]
        if stem.endswith("i"):
            return stem[:-1] + "y"
        if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "ls":
            return stem[:-1]
        if re.search(r"(?:[^aeiou][aeiou][vcz]|at|iz|ur|ag|bl)$", stem):
            return stem + "e"
        return stem
    return None


def is_verb(word: str) -> bool:
    return verb_lemma(word) is not None


def is_function_word(word: str) -> bool:
    lower = fold(word)
    return lower in STOPWORDS or lower in IRREGULAR_FORMS


ADJECTIVE_SUFFIXES = ("ful", "ous", "ive", "able", "ible", "less", "ish", "ical", "ly")


def looks_like_noun(word: str) -> bool:
    """A lower-case word that can stand alone as an entity: not a function word, adverb or adjective.

    Verbs are told apart by their place in the sentence before this is asked.
    """
    lower = fold(word)
    return len(lower) >= 3 and lower not in STOPWORDS and lower[0].isalpha() and not lower.endswith(ADJECTIVE_SUFFIXES)


def snake_case(words: list[str]) -> str:
    text = "_".join(re.sub(r"[^a-z0-9]+", "_", fold(word)).strip("_") for word in words)
    return re.sub(r"_+", "_", text).strip("_")
