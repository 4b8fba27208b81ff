"""Wording of announcements (issue 7): square and piece said together, both languages, every event kind."""

import pytest

from board_io.announce import LANGS, StatusWatcher, announce, spoken_form

MOVE = {"event": "move", "side": "white", "move": "c3xe5", "path": ["c3", "e5"], "captured": ["d4"]}


def test_capture_is_said_with_taken_piece_and_landing_square():
    assert announce(MOVE, "cs").text == "Bílý: c3 bere d4, dopadá na e5."
    assert announce(MOVE, "en").text == "White: c3 takes d4, lands on e5."


def test_quiet_move_and_promotion():
    event = {"event": "move", "side": "black", "move": "b2-a1", "path": ["b2", "a1"], "captured": [],
             "promoted": True}
    assert announce(event, "en").text == "Black: b2 to a1. Becomes a king."
    assert announce(event, "cs").text == "Černý: b2 na a1. Mění se v dámu."


def test_multi_capture_names_every_piece_and_stop():
    event = {"event": "move", "side": "white", "path": ["a1", "c3", "e5"], "captured": ["b2", "d4"]}
    assert announce(event, "en").text == "White: a1 takes b2 and d4, via c3, lands on e5."


def test_violation_is_assertive_and_cites_the_article_and_the_legal_captures():
    event = {"event": "violation", "kind": "missed_capture", "side": "white", "squares": ["c3"],
             "legal": ["c3xe5"], "legal_moves": [{"path": ["c3", "e5"], "captured": ["d4"]}]}
    said = announce(event, "en")
    assert said.politeness == "assertive"
    assert "čl. 4.1" in said.text and "c3 takes d4, lands on e5" in said.text
    assert "čl. 4.1" in announce(event, "cs").text


@pytest.mark.parametrize("lang", LANGS)
def test_pending_capture_asks_to_remove_the_remaining_pieces(lang):
    one = announce({"event": "pending", "remaining": ["d4"]}, lang).text
    two = announce({"event": "pending", "remaining": ["d4", "f6"]}, lang).text
    assert "d4" in one and "f6" not in one
    assert "d4" in two and "f6" in two and one != two


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("event", [
    {"event": "corrected"}, {"event": "accepted", "fen": "W:W:B"}, {"event": "game_start"},
    {"event": "takeback"}, {"event": "reminder", "kind": "crown", "squares": ["d8"]},
    {"event": "game_over", "result": "1-0", "reason": "Black cannot move"},
])
def test_every_event_kind_has_words(lang, event):
    said = announce(event, lang)
    assert said is not None and said.text.strip()


def test_game_over_is_assertive_and_names_the_winner():
    said = announce({"event": "game_over", "result": "0-1", "reason": "White has no pieces"}, "cs")
    assert said.politeness == "assertive" and "černý" in said.text


def test_unknown_language_is_refused():
    with pytest.raises(ValueError, match="language"):
        announce(MOVE, "de")


def test_spoken_form_spells_squares():
    assert spoken_form("c3 bere d4", "cs") == "cé 3 bere dé 4"
    assert spoken_form("White: a1 to b2", "en") == "White: A 1 to B 2"
    assert spoken_form("no squares here", "en") == "no squares here"


def test_status_watcher_says_changes_only():
    w = StatusWatcher("en")
    assert w.update({"event": "status", "board_found": True, "orientation_ok": True}) is None
    lost = w.update({"event": "status", "board_found": False})
    assert lost is not None and lost.politeness == "assertive"
    assert w.update({"event": "status", "board_found": False}) is None
    turned = w.update({"event": "status", "board_found": True, "orientation_ok": False})
    assert "dark square" in turned.text
    back = w.update({"event": "status", "board_found": True, "orientation_ok": True})
    assert back is not None and back.politeness == "polite"


def test_a_capture_replaced_by_the_longer_one_is_said_as_going_on():
    event = {"event": "takeback", "ply": 40, "fen": "B:Wc3:BKa1",
             "reason": "the capture went on from d4 (čl. 4.9–4.12)"}
    assert announce(event, "en").text == "The capture went on."
    assert announce(event, "cs").text == "Braní pokračovalo."
    assert announce({"event": "takeback", "ply": 3, "fen": "W:Wc3:Bd6"}, "en").text == "Last move taken back."
