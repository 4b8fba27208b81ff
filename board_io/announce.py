"""What the companion says, in Czech and English, for a player who cannot see the board.

One sentence per event, square and piece said together, plain text that a screen reader or braille
display reads fast (the dashboard's aria-live region and ``dama watch --say`` print it as it is) plus a
``spoken`` variant for espeak-ng in which square names are spelled so they are heard clearly
("cé tři" rather than a mumbled "c3"). Politeness says how urgent it is: ``polite`` for the run of play,
``assertive`` for what needs attention now (violations, game over, a board turned wrongly).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

LANGS = ("cs", "en")

ARTICLES = {
    "missed_capture": "čl. 4.1",
    "king_priority": "čl. 4.14",
    "incomplete_capture": "čl. 4.13",
    "illegal_move": "čl. 5.4",
    "accepted": "čl. 5.7",
    "orientation": "čl. 2.4",
    "crown": "čl. 3.6",
}

_WORDS = {
    "en": {
        "white": "White", "black": "Black", "to": "to", "takes": "takes", "lands": "lands on", "via": "via",
        "and": "and", "king": "Becomes a king.",
        "missed_capture": "missed capture, capturing is compulsory",
        "king_priority": "a king must capture, it has priority over a man",
        "incomplete_capture": "incomplete capture, the capture must be finished",
        "illegal_move": "illegal move",
        "warning": "Warning", "possible": "Possible", "corrected": "Corrected, the board is legal again.",
        "accepted": "The position stands as played.", "remove": "Remove the piece on", "remove_pl":
        "Remove the pieces on", "pending": "Capture under way.", "crown": "Crown the piece on",
        "game_over": "Game over", "1-0": "White wins", "0-1": "Black wins", "1/2-1/2": "draw",
        "new_game": "New game.", "takeback": "Last move taken back.", "went_on": "The capture went on.",
        "no_board": "The camera does not see the board.",
        "orientation": "The board is turned wrongly: a dark square must be at each player's left.",
        "board_ok": "Board found and placed correctly.", "hand": "Hand over the board.",
        "setting_up": "The board does not show the game's position yet: set the pieces up.",
        "set_up": "The pieces are set up.",
        "not_yet": "Not yet as in the game:", "and_more": "and {} more",
        "misread": "The camera may be misreading",
        "masked": "Read from the game, not the camera:", "unmasked": "The camera reads every square again.",
        "error": "Unreadable input",
    },
    "cs": {
        "white": "Bílý", "black": "Černý", "to": "na", "takes": "bere", "lands": "dopadá na", "via": "přes",
        "and": "a", "king": "Mění se v dámu.",
        "missed_capture": "opomenuté braní, braní je povinné",
        "king_priority": "brát musí dáma, má přednost před kamenem",
        "incomplete_capture": "nedokončené braní, braní se musí dokončit",
        "illegal_move": "tah proti pravidlům",
        "warning": "Pozor", "possible": "Možné", "corrected": "Opraveno, pozice je opět podle pravidel.",
        "accepted": "Pozice zůstává, jak byla zahrána.", "remove": "Odeberte kámen na", "remove_pl":
        "Odeberte kameny na", "pending": "Braní probíhá.", "crown": "Korunujte kámen na",
        "game_over": "Konec partie", "1-0": "vyhrál bílý", "0-1": "vyhrál černý", "1/2-1/2": "remíza",
        "new_game": "Nová partie.", "takeback": "Poslední tah vzat zpět.", "went_on": "Braní pokračovalo.",
        "no_board": "Kamera nevidí desku.",
        "orientation": "Deska je otočena špatně: vlevo u každého hráče musí být tmavé pole.",
        "board_ok": "Deska nalezena a správně umístěna.", "hand": "Ruka nad deskou.",
        "setting_up": "Deska ještě neukazuje pozici partie: rozestavte kameny.",
        "set_up": "Kameny jsou rozestavené.",
        "not_yet": "Ještě neodpovídá partii:", "and_more": "a {} dalších",
        "misread": "Kamera možná špatně čte pole",
        "masked": "Z partie, ne z kamery, se čte:", "unmasked": "Kamera opět čte všechna pole.",
        "error": "Nečitelný vstup",
    },
}

# How espeak-ng should hear a file letter, per language: letters alone are easily swallowed.
_LETTERS = {
    "cs": {"a": "á", "b": "bé", "c": "cé", "d": "dé", "e": "é", "f": "ef", "g": "gé", "h": "há"},
    "en": {"a": "A", "b": "B", "c": "C", "d": "D", "e": "E", "f": "F", "g": "G", "h": "H"},
}
_SQUARE = re.compile(r"\b([a-h])([1-8])\b")


@dataclass(frozen=True)
class Announcement:
    text: str        # plain text for screen readers and the terminal
    politeness: str  # "polite" | "assertive"
    spoken: str      # the same for a speech engine, square names spelled out
    kind: str        # the event kind it came from


def spoken_form(text: str, lang: str) -> str:
    """Spell square names for speech: ``c3`` → ``cé 3`` in Czech, ``C 3`` in English."""
    letters = _LETTERS[lang]
    return _SQUARE.sub(lambda m: f"{letters[m.group(1)]} {m.group(2)}", text)


def _join(items: list[str], lang: str) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + f" {_WORDS[lang]['and']} " + items[-1]


def side_word(side: Any, lang: str) -> str:
    return _WORDS[lang].get(str(side), str(side).capitalize() if side else "?")


def move_phrase(event: dict[str, Any], lang: str = "en") -> str:
    """``c3 takes d4, lands on e5`` / ``c3 bere d4, dopadá na e5`` / ``c3 to d4`` / ``c3 na d4``."""
    w = _WORDS[lang]
    path = [str(s) for s in event.get("path") or []]
    captured = [str(s) for s in event.get("captured") or []]
    notation = str(event.get("move", ""))
    if len(path) < 2:
        path = re.findall(r"[a-h][1-8]", notation)
    if len(path) < 2:
        return notation or "?"
    if not captured and ("x" in notation or ":" in notation):  # a capture known only by its notation
        return f"{path[0]} {w['takes']}, {w['lands']} {path[-1]}"
    if captured:
        stops = path[1:-1]
        via = f", {w['via']} {_join(stops, lang)}" if stops else ""
        return f"{path[0]} {w['takes']} {_join(captured, lang)}{via}, {w['lands']} {path[-1]}"
    return f"{path[0]} {w['to']} {path[-1]}"


def _text(event: dict[str, Any], lang: str) -> tuple[str, str] | None:
    w = _WORDS[lang]
    kind = event.get("event")
    if kind == "move":
        text = f"{side_word(event.get('side'), lang)}: {move_phrase(event, lang)}."
        if event.get("promoted"):
            text += " " + w["king"]
        return text, "polite"
    if kind == "violation":
        vkind = str(event.get("kind", "illegal_move"))
        title = w.get(vkind, vkind.replace("_", " "))
        who = side_word(event.get("side"), lang).lower()
        text = f"{w['warning']}, {who}: {title} ({ARTICLES.get(vkind, 'čl. 5.4')})."
        legal = event.get("legal_moves") or [{"move": str(m)} for m in event.get("legal") or []]
        if legal and vkind in ("missed_capture", "king_priority", "incomplete_capture"):
            phrases = [move_phrase(m, lang) for m in legal[:3]]
            text += f" {w['possible']}: {'; '.join(phrases)}."
        elif event.get("message") and lang == "en":
            text += f" {str(event['message']).rstrip('.')}."
        return text, "assertive"
    if kind == "corrected":
        return w["corrected"], "polite"
    if kind == "accepted":
        return f"{w['accepted']} ({ARTICLES['accepted']})", "polite"
    if kind == "pending":
        remaining = [str(s) for s in event.get("remaining") or []]
        if not remaining:
            return w["pending"], "polite"
        return f"{w['remove_pl'] if len(remaining) > 1 else w['remove']} {_join(remaining, lang)}.", "polite"
    if kind == "notice" and event.get("kind") == "setting_up":
        off = [str(sq) for sq in event.get("squares") or []]
        listed = ", ".join(off[:6]) + f" {w['and_more'].format(len(off) - 6)}" if len(off) > 6 else _join(off, lang)
        return f"{w['not_yet']} {listed}.", "polite"
    if kind == "notice" and event.get("kind") == "masked":
        squares = [str(sq) for sq in event.get("squares") or []]
        return (f"{w['masked']} {_join(squares, lang)}." if squares else w["unmasked"]), "polite"
    if kind == "notice" and event.get("kind") == "misread":
        return f"{w['misread']} {_join([str(sq) for sq in event.get('squares') or []], lang)}.", "polite"
    if kind == "reminder" and event.get("kind") == "crown":
        squares = _join([str(s) for s in event.get("squares") or []], lang)
        return f"{w['crown']} {squares} ({ARTICLES['crown']}).", "polite"
    if kind == "game_over":
        result = w.get(str(event.get("result")), str(event.get("result")))
        reason = str(event.get("reason") or "").strip()
        tail = f": {reason}" if reason and lang == "en" else ""
        return f"{w['game_over']}, {result}{tail}.", "assertive"
    if kind == "game_start":
        return w["new_game"], "polite"
    if kind == "takeback":  # with a reason: the referee replaced a capture recorded at a stop on a longer one
        return (w["went_on"] if event.get("reason") else w["takeback"]), "polite"
    if kind == "error":
        return f"{w['error']}: {event.get('message', '')}".strip(), "polite"
    return None


def announce(event: dict[str, Any], lang: str = "en") -> Announcement | None:
    """The announcement for one event, or None for events not worth saying."""
    if lang not in LANGS:
        raise ValueError(f"language must be one of {', '.join(LANGS)}, not {lang!r}")
    said = _text(event, lang)
    if said is None:
        return None
    text, politeness = said
    return Announcement(text, politeness, spoken_form(text, lang), str(event.get("event")))


class StatusWatcher:
    """Turns the stream of ``status`` events into announcements of changes only (board lost, turned
    wrongly, still being set up, found again), so a screen reader is not flooded every frame."""

    def __init__(self, lang: str = "en") -> None:
        self.lang = lang
        self._last: str | None = None

    def update(self, event: dict[str, Any]) -> Announcement | None:
        w = _WORDS[self.lang]
        if event.get("board_found") is False:
            state = "no_board"
        elif event.get("orientation_ok") is False:
            state = "orientation"
        elif event.get("state") == "setting_up":
            state = "setting_up"
        else:
            state = "ok"
        previous, self._last = self._last, state
        if state == previous:
            return None
        if state == "ok":
            if previous is None:
                return None
            text, politeness = w["set_up" if previous == "setting_up" else "board_ok"], "polite"
        else:
            text, politeness = w[state], "polite" if state == "setting_up" else "assertive"
        return Announcement(text, politeness, spoken_form(text, self.lang), "status")


class Announcer:
    """What one listener hears: every event's announcement, and status changes only when they change."""

    def __init__(self, lang: str = "en") -> None:
        if lang not in LANGS:
            raise ValueError(f"language must be one of {', '.join(LANGS)}, not {lang!r}")
        self.lang = lang
        self._status = StatusWatcher(lang)

    def __call__(self, event: dict[str, Any]) -> Announcement | None:
        if event.get("event") == "status":
            return self._status.update(event)
        return announce(event, self.lang)
