"""Sensu told as a play-by-play: draws and discards, each combination with its redeemed cards and
bonuses, the fans growing and closing, the powers, the solo places and the final count."""
from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from ..games import sensu as K
from . import Narrator as Base


class Narrator(Base):
    # ----- words --------------------------------------------------------------------------------
    def card(self, st: Any, c: int) -> str:
        c = int(c)
        if c < 0:
            return "-"
        return f"{K.card_name(c)} ({int(st.ST[c])} stick{'s' if int(st.ST[c]) != 1 else ''})"

    def _slots(self, st: Any, seat: int) -> list[int]:
        """The slot cards a combination is taken from: the hand's first 6, or the solo places."""
        if self.players == 1:
            out = [int(st.pile[0, 0, st.pile_n[0, 0] - 1]) if st.pile_n[0, 0] > 0 else -1]
            for c in range(4):
                k = int(st.col_n[0, c])
                out.append(int(st.columns[0, c, k - 1]) if k > 0 else -1)
            return out + [-1]
        n = int(st.hand_n[0, seat])
        return [int(st.hand[0, seat, s]) if s < n else -1 for s in range(K.SLOTS)]

    def _mask_cards(self, st: Any, seat: int, mask: int) -> list[int]:
        cards = self._slots(st, seat)
        return [cards[s] for s in range(K.SLOTS) if (mask >> s) & 1]

    def _fans(self, st: Any, p: int) -> str:
        parts = []
        for t in range(3):
            s = int(st.fan_sticks[0, p, t])
            mark = " closed" if st.closed[0, p, t] else ""
            ch = " (chosen)" if st.chosen[0, p] == t else ""
            parts.append(f"{K.TYPE_NAMES[t]} {s}{mark}{ch}")
        return ", ".join(parts)

    def _pile_top(self, st: Any, q: int) -> int:
        n = int(st.pile_n[0, q])
        return int(st.pile[0, q, n - 1]) if n > 0 else -1

    # ----- events -------------------------------------------------------------------------------
    def opening(self, st: Any) -> list[dict[str, Any]]:
        P = self.players
        lines = [f"deck: {int(st.deck_n[0])} cards"]
        if P == 1:
            ends = [f"column {c + 1} ends with {self.card(st, st.columns[0, c, st.col_n[0, c] - 1])}"
                    for c in range(4) if st.col_n[0, c] > 0]
            lines.append("solo: a discard pile and four columns" + ("; " + "; ".join(ends) if ends else ""))
            return [{"event": "deal", "title": "set-up", "lines": lines}]
        lines.append("every player holds 5 cards; seat 0 starts")
        if self.rules.chosen_fan:
            lines.append("chosen fans: " + ", ".join(f"seat {p} {K.TYPE_NAMES[int(st.chosen[0, p])]}"
                                                   for p in range(P)))
        private = {p: "hand: " + ", ".join(self.card(st, c) for c in st.hand[0, p, :st.hand_n[0, p]])
                   for p in range(P)}
        hidden = "deck top first: " + ", ".join(K.card_name(c) for c in st.deck[0, :st.deck_n[0]][::-1][:12]) + " ..."
        return [{"event": "deal", "title": "deal", "lines": lines, "private": private, "hidden": hidden}]

    def knew(self, st: Any, seat: int) -> str:
        P = self.players
        parts = []
        if P == 1:
            parts.append("places: " + ", ".join(("pile " if i == 0 else f"column {i} ") + self.card(st, c)
                                                for i, c in enumerate(self._slots(st, 0)[:5])))
            if st.pend[0] >= 0:
                parts.append(f"drew {self.card(st, st.pend[0])}")
        else:
            parts.append("hand: " + (", ".join(self.card(st, c) for c in st.hand[0, seat, :st.hand_n[0, seat]])
                                     or "none"))
            tops = [f"seat {q} {K.card_name(self._pile_top(st, q))}" for q in range(P) if st.pile_n[0, q] > 0]
            if tops:
                parts.append("pile tops: " + ", ".join(tops))
            parts.append("hand sizes: " + ", ".join(f"seat {q} {int(st.hand_n[0, q])}" for q in range(P) if q != seat))
        parts.append(f"deck {int(st.deck_n[0])}")
        parts.append("fans: " + "; ".join(("me " if p == seat else f"seat {p} ") + self._fans(st, p)
                                          for p in range(P)))
        return "; ".join(parts)

    def option(self, st: Any, opt: int) -> str:
        D = K.Decision
        kind = int(st.kind[0])
        seat = int(st.current[0])
        if kind in (D.TURN, D.SOLO_TURN):
            if opt >= K.PLAY:
                return "play " + " + ".join(K.card_name(c) for c in self._mask_cards(st, seat, opt - K.PLAY))
            if kind == D.SOLO_TURN:
                return "draw a card" if st.deck_n[0] > 0 else "draw (the deck is empty: the game ends)"
            if opt == K.PASS:
                return "pass (nothing to draw)"
            if opt == K.DECK:
                return "draw the deck's top"
            return f"take seat {opt - 1}'s pile top {K.card_name(self._pile_top(st, opt - 1))}"
        if kind == D.DISCARD:
            return f"discard {K.card_name(st.hand[0, seat, opt])}"
        if kind == D.ARRANGE:
            order = self._order(opt)
            cards = self._slots(st, seat)
            k = int(st.red_k[0])
            red = [K.card_name(cards[s]) for s in order[:k]]
            rest = [K.card_name(cards[s]) for s in order[k:]]
            return ("redeem " + ", ".join(red) + (" (in this order)" if len(red) > 1 else "")
                    + ("; discard " + ", ".join(rest) + (" (the last on top)" if len(rest) > 1 else "") if rest else ""))
        if kind == D.WISDOM:
            return ("draw the deck's top" if opt == 0
                    else f"take seat {opt - 1}'s pile top {K.card_name(self._pile_top(st, opt - 1))}")
        if kind == D.HARMONY:
            return f"take seat {opt}'s pile top {K.card_name(self._pile_top(st, opt))} onto a fan"
        if kind == D.COURAGE:
            picks = []
            for o in range(self.players):
                t = ((opt >> (K.COURAGE_BITS * o)) & 3) - 1
                if t >= 0:
                    picks.append(f"seat {o}'s {K.TYPE_NAMES[t]}")
            return "remove the last card of " + (", ".join(picks) if picks else "no fan")
        if kind == D.PLACE:
            return "onto the pile" if opt == 0 else f"onto column {opt}"
        return f"option {opt}"

    @staticmethod
    def _order(opt: int) -> list[int]:
        out = []
        for j in range(K.SLOTS):
            d = (opt >> (K.ORDER_BITS * j)) & 7
            if d == 0:
                break
            out.append(d - 1)
        return out

    def _bonuses(self, st: Any, cards: list[int]) -> str:
        """Why a combination redeems what it does (the rulebook's redeeming rule)."""
        values = [int(K.CARD_VALUE[c]) for c in cards if K.CARD_WILD[c] < 0]
        types = Counter(int(K.CARD_TYPE[c]) for c in cards)
        why = ["the card with the most sticks"]
        pairs = [v for v, n in Counter(values).items() if n >= 2]
        if pairs:
            why.append(f"a bonus card for the pair of {pairs[0]}s")
        three = [t for t, n in types.items() if n >= 3]
        if three:
            why.append(f"a bonus card for {types[three[0]]} {K.TYPE_NAMES[three[0]]} cards")
        return " + ".join(why)

    @staticmethod
    def _discarded_draws(before: Any, after: Any) -> str:
        """The closed-fan cards drawn and discarded before a new chosen fan (their type closed already), as
        the words before "draws a new chosen fan"; where the closed-fan deck ran out, that it was made again
        from its discards."""
        if int(after.cf_shuffles[0]) != int(before.cf_shuffles[0]):
            return "finds the closed-fan deck empty, shuffles its discards into a new one, and "
        gone = [K.TYPE_NAMES[t] for t in range(3) for _ in range(int(after.cf_disc[0, t] - before.cf_disc[0, t]))]
        return ("draws and discards " + ", ".join(gone) + " (closed already), then ") if gone else ""

    def _changes(self, before: Any, after: Any, builder: int = -1) -> list[str]:
        """Public changes of the fans and piles between two states (``builder``: the seat whose build the
        step's build lines already tell, card by card: its fans' gains and new chosen fan are left out)."""
        P = self.players
        out = []
        for p in range(P):
            for t in range(3):
                b, a = int(before.fan_n[0, p, t]), int(after.fan_n[0, p, t])
                if a > b and p == builder:
                    continue
                if a > b:
                    cards = ", ".join(K.card_name(c) for c in after.fan[0, p, t, b:a])
                    closed = " and closes it" if after.closed[0, p, t] and not before.closed[0, p, t] else ""
                    n = int(after.fan_sticks[0, p, t])
                    out.append(f"seat {p}'s {K.TYPE_NAMES[t]} fan gets {cards}: {n} stick{'s' if n != 1 else ''}{closed}")
                elif a < b:
                    n = int(after.fan_sticks[0, p, t])
                    out.append(f"seat {p}'s {K.TYPE_NAMES[t]} fan loses {K.card_name(before.fan[0, p, t, b - 1])}: "
                               f"{n} stick{'s' if n != 1 else ''}")
            if after.chosen[0, p] != before.chosen[0, p] and after.chosen[0, p] >= 0 and p != builder:
                out.append(f"seat {p} {self._discarded_draws(before, after)}draws a new chosen fan: "
                           f"{K.TYPE_NAMES[int(after.chosen[0, p])]}")
        if after.reshuffles[0] > before.reshuffles[0]:
            out.append(f"the deck was empty: the discard piles are shuffled into a new deck of {int(after.deck_n[0])}")
        return out

    _POWERS = {K.WISDOM: ("Hi-ogi's Wisdom: draw 3 cards", "no card to draw"),
               K.HARMONY: ("Mai-ougi's Harmony: a pile top onto a fan", "no pile top fits a fan"),
               K.COURAGE: ("Gun-sen's Courage: remove an opponent's last fan card",
                           "no opponent's fan has a last card to remove")}

    def _build(self, before: Any, after: Any, seat: int, queue: list[int], start_j: int,
               harmony: int = -1, goes_on: bool = False) -> list[str]:
        """The build of this step told card by card, in the order the engine placed the cards: each redeemed
        card (after Harmony's card ``harmony``) onto its fan, or onto the pile with the reason it fits no fan;
        the powers it sets off (one with nothing to act on is used up at once); a second closed fan's win.

        ``queue``: the redeemed cards still to place before the step (``red[start_j:red_k]``). The engine
        keeps no log: what happened is read off ``after`` (a card was placed iff its fan grew by it; a build
        that stops for a power leaves ``red_j`` at the next card), the reasons and sticks replayed from
        ``before`` with the rules of ``_fits_one`` / ``_place_one``."""
        D = K.Decision
        p = seat
        solo = self.players == 1
        ST, PW = before.ST, before.PW
        sticks = [int(x) for x in before.fan_sticks[0, p]]
        closed = [bool(x) for x in before.closed[0, p]]
        power = [int(x) for x in before.fan_power[0, p]]
        chosen = int(before.chosen[0, p])
        # the cards the step added to each of the builder's fans, in order
        grew = {t: [int(c) for c in after.fan[0, p, t, int(before.fan_n[0, p, t]):int(after.fan_n[0, p, t])]]
                for t in range(3)}
        cards = ([harmony] if harmony >= 0 else []) + list(queue)
        stops = int(after.kind[0]) in (D.WISDOM, D.HARMONY, D.COURAGE) and not after.done[0]
        # a build that stops for a power stops at its last processed card: the next card is red[red_j]
        m = (int(after.red_j[0]) - start_j + (1 if harmony >= 0 else 0)) if stops else len(cards)
        whose = "its" if solo else f"seat {p}'s"
        pile = "the discard pile" if solo else f"seat {p}'s pile"
        out: list[str] = []
        for i, c in enumerate(cards[:m]):
            t = int(K.CARD_TYPE[c])
            tot = sticks[t] + int(ST[c])
            name = K.card_name(c)
            head = name
            if goes_on and i == (1 if harmony >= 0 else 0):
                head = "the build goes on: " + name
            if grew[t] and grew[t][0] == c:
                grew[t].pop(0)
                sticks[t] = tot
                text = f"{head} onto {whose} {K.TYPE_NAMES[t]} fan: {tot} stick{'s' if tot != 1 else ''}"
                trig = False
                if self.rules.powers and PW[c]:
                    power[t] += 1
                    trig = power[t] == 2
                if tot == 10:
                    closed[t] = True
                    text += " and closes it"
                    if sum(closed) >= (3 if solo else 2):
                        out.append(text)
                        rest = cards[i + 1:]
                        end = ("all three fans are closed: the game ends" if solo
                               else f"seat {p} has closed two fans and wins at once")
                        if rest:
                            end += (": " + ", ".join(K.card_name(x) for x in rest)
                                    + f" stay{'s' if len(rest) == 1 else ''} unplaced")
                        out.append(end)
                        return out
                    if self.rules.chosen_fan and t == chosen:
                        new = int(after.chosen[0, p])
                        chosen = new if new >= 0 and not closed[new] else -1
                        text += (f"; seat {p} {self._discarded_draws(before, after)}draws a new chosen fan: "
                                 f"{K.TYPE_NAMES[chosen]}" if chosen >= 0 else "; no chosen fan is left to draw")
                if trig:
                    did, idle = self._POWERS[t]
                    if stops and i == m - 1:
                        text += f"; the fan's second power-symbol card: a power fires ({did})"
                    else:
                        text += (f"; the fan's second power-symbol card: {did.split(':')[0]} fires with nothing "
                                 f"to act on ({idle}) and is used up")
                out.append(text)
            else:
                if closed[t]:
                    why = f"{whose} {K.TYPE_NAMES[t]} fan is closed"
                elif tot > 10:
                    why = f"{whose} {K.TYPE_NAMES[t]} fan would reach {tot} sticks, over 10"
                else:
                    why = (f"it would close {whose} {K.TYPE_NAMES[t]} fan before "
                           + (f"the chosen {K.TYPE_NAMES[chosen]} fan" if chosen >= 0 else "the chosen fan")
                           + " is closed")
                out.append(f"{head} fits no fan ({why}): onto {pile}")
        if stops and m < len(cards):
            out.append("still to place after the power: " + ", ".join(K.card_name(c) for c in cards[m:]))
        return out

    def effect(self, before: Any, after: Any, opt: int, seat: int):
        D = K.Decision
        kind = int(before.kind[0])
        f: dict[str, Any] = {}
        build: list[str] | None = None   # the build's lines, when the step placed redeemed cards
        words = self.option(before, opt)
        if kind in (D.TURN, D.SOLO_TURN) and opt >= K.PLAY:
            cards = self._mask_cards(before, seat, opt - K.PLAY)
            k = int(after.red_k[0])
            f["effect"] = (f"plays {' + '.join(K.card_name(c) for c in cards)} = 20: redeems {k} card"
                           f"{'s' if k != 1 else ''} ({self._bonuses(before, cards)})")
        elif kind == D.TURN and opt != K.PASS:
            c = int(after.hand[0, seat, after.hand_n[0, seat] - 1]) if after.hand_n[0, seat] > before.hand_n[0, seat] \
                else int(before.deck[0, before.deck_n[0] - 1]) if opt == K.DECK else self._pile_top(before, opt - 1)
            if opt == K.DECK:
                f["effect"] = "draws the deck's top"
                f["private"] = {seat: f"drew {self.card(before, before.deck[0, before.deck_n[0] - 1])}"}
            else:
                f["effect"] = f"takes seat {opt - 1}'s pile top, {self.card(before, c)}"
        elif kind == D.DISCARD:
            f["effect"] = f"discards {self.card(before, before.hand[0, seat, opt])} onto its pile"
        elif kind == D.SOLO_TURN:
            f["effect"] = "draws a card" if before.deck_n[0] > 0 else "cannot draw: the game ends"
            if after.pend[0] >= 0:
                f["effect"] += f": {self.card(after, after.pend[0])}"
        elif kind == D.PLACE:
            f["effect"] = f"puts {self.card(before, before.pend[0])} {words}"
        elif kind == D.ARRANGE:
            effect = "redeems" + words[len("redeem"):] if words.startswith("redeem") else words
            effect = "discards" + effect[len("discard"):] if effect.startswith("discard ") else effect
            f["effect"] = effect.replace("; discard ", "; discards ")
            cards = self._slots(before, seat)
            build = self._build(before, after, seat, [cards[s] for s in self._order(opt)[:int(before.red_k[0])]], 0)
        elif kind in (D.WISDOM, D.HARMONY, D.COURAGE):
            rest = [int(c) for c in before.red[0, int(before.red_j[0]):int(before.red_k[0])]]
            if kind == D.WISDOM:
                f["effect"] = "Wisdom: " + ("draws the deck's top" if opt == 0 else f"takes seat {opt - 1}'s pile top, "
                                            f"{self.card(before, self._pile_top(before, opt - 1))}")
                if opt == 0:
                    f["private"] = {seat: f"drew {self.card(before, before.deck[0, before.deck_n[0] - 1])}"}
                # Wisdom draws again (no build yet) while it has cards left to draw and a source
                again = int(after.kind[0]) == D.WISDOM and int(after.wisdom_left[0]) == int(before.wisdom_left[0]) - 1
                if not again:
                    build = self._build(before, after, seat, rest, int(before.red_j[0]), goes_on=True)
            elif kind == D.HARMONY:
                top = self._pile_top(before, opt)
                f["effect"] = f"Harmony: puts seat {opt}'s pile top, {self.card(before, top)}, onto a fan"
                build = self._build(before, after, seat, rest, int(before.red_j[0]), harmony=top, goes_on=True)
            else:
                f["effect"] = "Courage: removes" + words[len("remove"):]
                build = self._build(before, after, seat, rest, int(before.red_j[0]), goes_on=True)
        else:
            f["effect"] = words
        changes = self._changes(before, after, seat if build is not None else -1)
        reshuffle = [x for x in changes if x.startswith("the deck was empty")]
        changes = [x for x in changes if x not in reshuffle]
        parts = changes + (build or []) + reshuffle
        if parts:
            f["effect"] = (f.get("effect") or "") + "; " + "; ".join(parts)
        return f, []

    def ending(self, st: Any, out: dict[str, np.ndarray]) -> list[str]:
        P = self.players
        lines = []
        if st.timeout[0]:
            lines.append("the turn limit stopped the game: nobody wins")
        for p in range(P):
            fans = []
            for t in range(3):
                cards = ", ".join(K.card_name(c) for c in st.fan[0, p, t, :st.fan_n[0, p, t]]) or "empty"
                fans.append(f"{K.TYPE_NAMES[t]} [{cards}] = {int(st.fan_sticks[0, p, t])}"
                            + (" closed" if st.closed[0, p, t] else ""))
            lines.append(f"seat {p} fans: " + "; ".join(fans))
            lines.append(f"seat {p} sticks in fans: {int(st.fan_sticks[0, p].sum())}")
        if P == 1:
            score = float(out["score"][0, 0])
            if st.closed[0, 0].all():
                deck = [int(c) for c in st.deck[0] if c >= 0]
                lines.append(f"all three fans closed: the deck's {len(deck)} cards add "
                             f"{int(sum(int(st.ST[c]) for c in deck))} sticks")
            level = K.LEVELS[int(np.clip((int(score) - 15) // 5, 0, 5))]
            lines.append(f"solo score {int(score)}: {level}")
        elif st.winner[0] >= 0:
            w = int(st.winner[0])
            lines.append(f"seat {w} closed a second fan and wins at once")
            limbo = [int(c) for c in st.limbo[0] if c >= 0]
            if limbo:
                lines.append("redeemed cards left unplaced: " + ", ".join(K.card_name(c) for c in limbo))
        return lines
