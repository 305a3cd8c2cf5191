"""The rulebooks' worked examples as traces: the scripted deals and positions of the rule tests, played
through :func:`simcore.tracing.trace_game` and printed. ``python -m tests.trace_examples`` prints them all
(docs/traces.md shows this text; tests/test_traces.py checks it there and against the rulebooks' figures)."""
from __future__ import annotations

import numpy as np

from simcore.games.fan_and_mallet import FanAndMallet
from simcore.games.fan_and_mallet import kid, spirit
from simcore.games.sen import SenRules, Start
from simcore.games.senshi import GONE, Decision as SenshiDecision, Senshi, SenshiRules
from simcore.games.sensu import Action, Sensu
from simcore.rng import game_keys, root_key
from simcore.tracing import render, trace_game
from tests.sen_script import Scripted, make_deck, scripted_game


def sen_penalty(ravens_not_scary: bool = False) -> list[dict]:
    """Sen, "End of a round" (and "Ravens are not scary"): player 4 (seat 3) says WAKE UP! with 11 ravens
    while player 3 (seat 2) has 10; player 1 (seat 0) holds the only 9."""
    deck = make_deck([[9, 5, 3, 2], [8, 4, 4, 0], [1, 2, 3, 4], [0, 3, 8, 0]], 6, [7, 7])
    agents = [Scripted([]), Scripted([]), Scripted([]), Scripted([("start", Start.WAKE)])]
    rules = SenRules(rounds=1, ravens_not_scary=ravens_not_scary)
    eng, st, seats = scripted_game(4, rules, deck, agents)
    st.cur[:] = 3
    return trace_game(eng, agents, 4, rules, state=st, keys=seats_keys())


def seats_keys() -> np.ndarray:
    return game_keys(root_key(0), np.arange(1))


def _senshi_final(players, piles, hands, emptier, last_seat, last_colour, hand_before):
    """A Senshi position at the last final turn: the middle and every card empty, the given piles and
    hand sizes (by colour ``hand_before``), ``last_seat`` to play its Test of ``last_colour``."""
    from tests.test_senshi_rules import TEST, Script, deal_for

    eng = Senshi()
    rules = SenshiRules()
    st = eng.new_state(seats_keys(), players, rules, deal=deal_for(players, []))
    st.loc[0, :] = GONE
    st.height[0, :] = 0
    st.top[0, :] = -1
    st.mid_count[0] = 0
    st.cards[0] = -1
    st.card_count[0] = 0
    st.card_tops[0] = 0
    st.known[0] = 0
    st.piles[0] = piles
    st.hand[0] = hand_before
    st.hand_size[0] = np.asarray(hand_before).sum(axis=1)
    st.remaining[0] = 1
    st.emptier[0] = emptier
    st.cur[0] = last_seat
    st.kind[0] = SenshiDecision.ACT
    agents = [Script(acts=[(TEST, last_colour)]) for _ in range(players)]
    return trace_game(eng, agents, players, rules, state=st, keys=seats_keys())


def senshi_victory_1() -> list[dict]:
    """Senshi, "Victory", example 1: Kaito (seat 0) 7,4,3,3, Himari (seat 1) 5,4,4,4, Yoshihisa (seat 2)
    6,5,4,4 after his last Test (a Strength from 5,5,4,4)."""
    piles = [[7, 4, 3, 3], [5, 4, 4, 4], [5, 5, 4, 4]]
    hands = [[0, 0, 0, 0], [0, 0, 0, 0], [1, 0, 0, 0]]
    return _senshi_final(3, piles, None, emptier=1, last_seat=2, last_colour=0, hand_before=hands)


def senshi_victory_3() -> list[dict]:
    """Senshi, "Victory", example 3: Kaito, Himari and Yoshihisa (seats 0-2) tie for the tallest pile (6);
    Tomoe (seat 3) holds the shortest (1) and is eliminated; hands 2, 2, 0: Kaito and Himari tie, and
    Himari's final turn came later (Tomoe emptied the middle and plays the last final turn: a Wisdom
    Test from 5,5,5,0 with 5 tiles in hand)."""
    piles = [[6, 3, 3, 2], [6, 4, 2, 2], [6, 5, 5, 2], [5, 5, 5, 0]]
    hands = [[2, 0, 0, 0], [0, 2, 0, 0], [0, 0, 0, 0], [1, 1, 1, 2]]
    return _senshi_final(4, piles, None, emptier=3, last_seat=3, last_colour=3, hand_before=hands)


def sensu_example_3() -> list[dict]:
    """Sensu, "Redeeming cards", example 3 (2, 2, 4, 5, 7) played in a turn: one 2 for the most sticks,
    a bonus card for the pair of 2s, one for three Gun-sen cards."""
    from tests.test_sensu_rules import GUN, HI, MAI, Script, card, make

    hand = [card(GUN, 2), card(HI, 2, "C"), card(GUN, 4), card(GUN, 5), card(MAI, 7)]
    st = make(4, [hand])
    agents = [Script(actions=(Action.PLAY + 0b11111,), orders=((1, 4, 3, 2, 0),))] * 4
    return trace_game(Sensu(), agents, 4, st.rules, state=st, keys=st.keys, max_decisions=2)


def _fm_possession(stack4, last, origin, house_faction, mover) -> list[dict]:
    from tests.test_fan_and_mallet_rules import Script, possession_position

    s = possession_position(stack4, last, origin, house_faction, mover)
    agents = [Script((last,)), Script((last,))]
    return trace_game(FanAndMallet(), agents, 2, s.rules, state=s, keys=s.keys, max_decisions=1)


def fan_and_mallet_example_1() -> list[dict]:
    """Fan & Mallet, "Possession", example 1: White 2 + 4 = 6, Black 3 + 1 + 4 = 8: Black places its
    possession markers (two: the first possession of the game)."""
    W, B = 0, 1
    RED, BLUE, GREEN, YELLOW, PURPLE, BROWN = range(6)
    return _fm_possession([spirit(W, RED, 2), spirit(B, GREEN, 3), spirit(W, BLUE, 4), spirit(B, YELLOW, 1)],
                          spirit(B, PURPLE, 4), BROWN, W, B)


def fan_and_mallet_hatchet() -> list[dict]:
    """Fan & Mallet, the Hatchet kid ghost: the five followers' factions alternate, so the brown kid
    ghost adds 4 to its power (1 + 4 = 5)."""
    W, B = 0, 1
    RED, BLUE, GREEN, YELLOW, PURPLE, BROWN = range(6)
    return _fm_possession([spirit(W, RED, 2), spirit(B, GREEN, 3), spirit(W, BLUE, 3), kid(B, BROWN)],
                          spirit(W, YELLOW, 1), PURPLE, W, W)


EXAMPLES = {
    "sen: end of a round, the caller's penalty": lambda: sen_penalty(False),
    "sen: ravens are not scary": lambda: sen_penalty(True),
    "senshi: victory, example 1": senshi_victory_1,
    "senshi: victory, example 3": senshi_victory_3,
    "sensu: redeeming cards, example 3": sensu_example_3,
    "fan-and-mallet: possession, example 1": fan_and_mallet_example_1,
    "fan-and-mallet: the hatchet kid ghost": fan_and_mallet_hatchet,
}


def texts() -> dict[str, str]:
    return {name: render(make()) for name, make in EXAMPLES.items()}


if __name__ == "__main__":
    for name, text in texts().items():
        print(f"### {name}\n\n```\n{text}```\n")
