"""Sen told as a play-by-play: deals, every decision, the reveal and the scoring of each round."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..games import sen as K
from . import Narrator as Base, snapshot

_SPECIAL = {1: "Take 2", 2: "Peek 1", 3: "Swap 2"}


def card(c: int) -> str:
    """A card by its value, and its action for a special: ``7 (Swap 2)``."""
    c = int(c)
    v, k = int(K.VALUE[c]), int(K.KIND[c])
    return f"{v} ({_SPECIAL[k]})" if k else str(v)


def a_card(c: int) -> str:
    """:func:`card` with its article: ``an 8``, ``a 7 (Swap 2)``."""
    text = card(c)
    return ("an " if text.startswith("8") else "a ") + text


def _pos(p: int, s: int) -> str:
    return f"seat {p} slot {s}"


class Narrator(Base):
    def _dream(self, st: Any, p: int) -> list[int]:
        return [int(c) for c in st.dream[0, p, :st.nslots[0, p]]]

    def _top(self, st: Any) -> int:
        return int(st.up[0, st.up_len[0] - 1])

    def _deal_event(self, st: Any) -> dict[str, Any]:
        P = self.players
        r = int(st.round[0])
        lines = [f"face-up pile: {card(self._top(st))}; face-down pile: {K.N_CARDS - int(st.ptr[0])} cards; "
                 f"seat {int(st.cur[0])} starts"]
        hidden = "; ".join(f"seat {p}: " + " ".join(card(c) for c in self._dream(st, p)) for p in range(P))
        private = {p: f"own slots 0 and 1: {card(st.dream[0, p, 0])}, {card(st.dream[0, p, 1])}" for p in range(P)}
        return {"event": "deal", "title": f"round {r + 1}: deal (4 face-down lands each)", "round": r + 1,
                "lines": lines, "private": private, "hidden": f"dreams {hidden}"}

    def opening(self, st: Any) -> list[dict[str, Any]]:
        return [self._deal_event(st)]

    def knew(self, st: Any, seat: int) -> str:
        P = self.players
        own = " ".join(str(int(v)) if v >= 0 else "?" for v in st.mem[0, seat, seat, :st.nslots[0, seat]])
        parts = [f"own lands [{own}]"]
        others = [f"{_pos(p, s)}={int(st.mem[0, seat, p, s])}" for p in range(P) if p != seat
                  for s in range(st.nslots[0, p]) if st.mem[0, seat, p, s] >= 0]
        if others:
            parts.append("remembers " + ", ".join(others))
        parts.append(f"face-up {card(self._top(st))}")
        parts.append(f"pile {K.N_CARDS - int(st.ptr[0])}")
        parts.append("scores " + " ".join(str(int(x)) for x in st.score[0]))
        kind = int(st.kind[0])
        if kind == K.Decision.DRAWN:
            parts.append(f"drew {card(st.pend[0, 0])}")
        elif kind == K.Decision.KEEP:
            parts.append(f"Take 2 offers {card(st.pend[0, 1])} and {card(st.pend[0, 2])}")
        return "; ".join(parts)

    def option(self, st: Any, opt: int) -> str:
        kind = int(st.kind[0])
        D = K.Decision
        if kind == D.START:
            return {0: "WAKE UP!", 1: f"take the face-up {card(self._top(st))}", 2: "draw from the face-down pile",
                    3: "claim two lands of equal value"}.get(opt, f"option {opt}")
        if kind == D.FACE_UP:
            return f"slot {opt}"
        if kind == D.DRAWN:
            if opt >= 0:
                return f"exchange with slot {opt}"
            return "discard it" if opt == -1 else f"discard it and use {_SPECIAL.get(int(K.KIND[st.pend[0, 0]]), '?')}"
        if kind == D.KEEP:
            return f"keep the {card(st.pend[0, 1 + opt])}" if opt in (0, 1) else f"option {opt}"
        if kind == D.PEEK:
            return f"look at {_pos(opt // K.POSITION_STRIDE, opt % K.POSITION_STRIDE)}"
        if kind == D.SWAP:
            a, b = opt // K.SWAP_STRIDE, opt % K.SWAP_STRIDE
            return (f"swap {_pos(a // K.POSITION_STRIDE, a % K.POSITION_STRIDE)} with "
                    f"{_pos(b // K.POSITION_STRIDE, b % K.POSITION_STRIDE)}")
        if kind == D.CLAIM:
            ab, v = opt // 10, opt % 10
            return f"slots {ab // K.SLOTS} and {ab % K.SLOTS} both hold {v}"
        return f"option {opt}"

    def effect(self, before: Any, after: Any, opt: int, seat: int):
        D = K.Decision
        kind = int(before.kind[0])
        f: dict[str, Any] = {}
        if kind == D.START:
            f["effect"] = {0: "says WAKE UP!: the round ends", 1: "will take the face-up card",
                           2: "draws the face-down top", 3: "says \"I know what I have\""}[opt]
            if opt == 2:
                f["private"] = {seat: f"drew {card(after.pend[0, 0])}"}
        elif kind == D.FACE_UP:
            f["effect"] = (f"takes the face-up {card(self._top(before))} into slot {opt}; its old land, "
                           f"{a_card(before.dream[0, seat, opt])}, goes face up")
        elif kind == D.DRAWN:
            c = before.pend[0, 0]
            if opt >= 0:
                f["effect"] = (f"exchanges the drawn card with slot {opt}; the old land, "
                               f"{a_card(before.dream[0, seat, opt])}, goes face up")
                f["private"] = {seat: f"keeps the {card(c)} in slot {opt}"}
            elif opt == -1:
                f["effect"] = f"discards the drawn {card(c)} face up"
            else:
                f["effect"] = f"discards the drawn {card(c)} face up and uses its action"
                if int(K.KIND[c]) == 1:
                    if int(after.kind[0]) == D.KEEP:
                        f["private"] = {seat: f"Take 2 draws {card(after.pend[0, 1])} and {card(after.pend[0, 2])}"}
                    elif int(after.kind[0]) == D.DRAWN and not after.done[0] and after.round[0] == before.round[0]:
                        f["private"] = {seat: f"Take 2 draws the last card: {card(after.pend[0, 0])}"}
                    else:
                        f["effect"] += "; Take 2 finds no card (the face-down pile is empty)"
        elif kind == D.KEEP:
            keep, other = (before.pend[0, 2], before.pend[0, 1]) if opt == 1 else (before.pend[0, 1], before.pend[0, 2])
            f["effect"] = f"keeps one of the two Take 2 cards; the other, {a_card(other)}, goes face up"
            f["private"] = {seat: f"kept the {card(keep)}"}
        elif kind == D.PEEK:
            p, s = opt // K.POSITION_STRIDE, opt % K.POSITION_STRIDE
            f["effect"] = f"looks at {_pos(p, s)}"
            f["private"] = {seat: f"{_pos(p, s)} is {a_card(before.dream[0, p, s])}"}
        elif kind == D.SWAP:
            f["effect"] = self.option(before, opt).replace("swap", "swaps", 1)
        elif kind == D.CLAIM:
            ab, v = opt // 10, opt % 10
            a, b = ab // K.SLOTS, ab % K.SLOTS
            va, vb = int(K.VALUE[before.dream[0, seat, a]]), int(K.VALUE[before.dream[0, seat, b]])
            right = va == v and vb == v
            f["effect"] = (f"names slots {a} and {b} as {v}: they show {card(before.dream[0, seat, a])} and "
                           f"{card(before.dream[0, seat, b])}, "
                           + ("right: both go face up" if right else "wrong: they stay, seen by all")
                           + "; a new land comes from the face-down pile")
        events: list[dict[str, Any]] = []
        if after.done[0] or after.round[0] != before.round[0]:
            events.append(self._round_end(before, after, opt, seat, kind == D.START and opt == 0))
            if not after.done[0]:
                events.append(self._deal_event(after))
        return f, events

    def _end_of_round_state(self, before: Any, opt: int) -> Any:
        """The step again on a copy whose rules end the game after this round: its dreams are the round's
        last (the real step has dealt the next round over them)."""
        st = snapshot(before)
        S = self.eng.state_tuple(st)
        R = list(self.eng.rules_tuple(st))
        R[K._R_ROUNDS] = np.int64(int(st.round[0]) + 1)
        K.step(S, tuple(R), 0, np.int64(opt))
        return st

    def _round_end(self, before: Any, after: Any, opt: int, seat: int, wake: bool) -> dict[str, Any]:
        P = self.players
        r = self.rules
        st = self._end_of_round_state(before, opt)
        totals, nines, only = [], [], []
        lines = []
        for p in range(P):
            d = self._dream(st, p)
            vals = [int(K.VALUE[c]) for c in d]
            totals.append(sum(vals))
            nines.append(sum(v == 9 for v in vals))
            only.append(len(vals) >= 1 and all(v == 9 for v in vals))
            lines.append(f"seat {p} reveals " + " ".join(card(c) for c in d) + f" = {sum(vals)} ravens")
        points = list(totals)
        all_in = bool(r.go_all_in and sum(only) == 1)  # it overrides every other count (the rulings)
        if r.ravens_not_scary and not all_in:
            most = max(nines)
            if most >= 1 and nines.count(most) == 1:
                w = nines.index(most)
                points[w] -= 9 * most
                lines.append(f"ravens are not scary: seat {w} alone has the most 9s ({most}) and does not count "
                             f"them: {totals[w]} - {9 * most} = {points[w]}")
            else:
                lines.append("ravens are not scary: " + ("nobody holds a 9" if most == 0 else
                                                         f"{nines.count(most)} seats share the most 9s ({most})")
                             + ", nobody is rewarded")
        if all_in:
            w = only.index(True)
            rest = ("every other count and the caller's check" if wake
                    else "every other count; the face-down pile is empty, nobody called")
            lines.append(f"go all in: seat {w}'s dream is only 9s: it adds 0, everybody else 50 (in place of {rest})")
            points = [0 if p == w else 50 for p in range(P)]
        elif wake:
            c = points[seat]
            low = min(points)
            if c <= low:
                tied = points.count(c) > 1
                if tied and r.caller_tie == "count":
                    lines.append(f"caller seat {seat} has {c}, tied for the fewest: counts {c}, no penalty")
                else:
                    lines.append(f"caller seat {seat} has {c}, the fewest{' (tied)' if tied else ''}: adds 0")
                    points[seat] = 0
            else:
                lines.append(f"caller seat {seat} has {c}, not the fewest ({low}): {c} + penalty {r.penalty} = "
                             f"{c + r.penalty}")
                points[seat] = c + r.penalty
        else:
            lines.append("the face-down pile is empty: nobody called, no penalty")
        engine_points = [int(x) for x in st.last_points[0]]
        lines.append("round points: " + ", ".join(str(x) for x in engine_points)
                     + ("" if engine_points == points else f" (the engine's; the steps above give {points})"))
        lines.append("game scores: " + ", ".join(str(int(x)) for x in after.score[0]))
        why = f"WAKE UP! by seat {seat}" if wake else "the face-down pile is empty"
        return {"event": "round_end", "title": f"round {int(before.round[0]) + 1} ends ({why})",
                "round": int(before.round[0]) + 1, "lines": lines, "points": engine_points,
                "scores": [int(x) for x in after.score[0]]}

    def ending(self, st: Any, out: dict[str, np.ndarray]) -> list[str]:
        if st.timeout[0]:
            return ["the turn limit stopped the game: nobody wins"]
        r = self.rules
        score = [int(x) for x in st.score[0]]
        n = int(st.round[0])
        why = (f"after {n} round{'s' if n != 1 else ''} (rounds={r.rounds})" if r.rounds is not None
               else f"after round {n}: a score reached the target {r.target}")
        low = min(score)
        best = [p for p in range(self.players) if score[p] == low]
        who = (f"seat {best[0]} wins" if len(best) == 1 else
               "seats " + ", ".join(map(str, best)) + " tie for the win and share it")
        return [f"the game ends {why}", f"fewest ravens ({low}): {who}"]
