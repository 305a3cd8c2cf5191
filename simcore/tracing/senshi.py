"""Senshi told as a play-by-play: the stacks, every Study / Train / Test, the final round, the
elimination and the tie-breaks."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..games import senshi as K
from . import Narrator as Base

NAMES = ("Strength", "Agility", "Honor", "Wisdom")


def tiles(counts) -> str:
    """Tiles by colour: ``Strength 1, Honor 2`` (``none`` for no tile)."""
    parts = [f"{NAMES[c]} {int(n)}" for c, n in enumerate(counts) if n]
    return ", ".join(parts) or "none"


def piles(row) -> str:
    return "/".join(str(int(x)) for x in row)


def a(name: str) -> str:
    return ("an " if name[0] in "AEIOUH" else "a ") + name


class Narrator(Base):
    setup = ("setup_take",)
    score_name = "smallest piles"

    def _stack(self, st: Any, s: int, all_tiles: bool = False) -> str:
        h = int(st.height[0, s])
        if h <= 0:
            return f"stack {s} (gone)"
        if all_tiles or self.rules.open_stacks:
            t = " ".join(NAMES[int(c)] for c in st.tiles[0, s, 3 - h:])
            return f"stack {s} ({t}, top first)"
        return f"stack {s} (top {NAMES[int(st.top[0, s])]}, {h} tile{'s' if h != 1 else ''})"

    def _where(self, st: Any, s: int) -> str:
        o = int(st.loc[0, s])
        return "the middle" if o == K.MIDDLE else f"seat {o}'s Training Card"

    def opening(self, st: Any) -> list[dict[str, Any]]:
        P = self.players
        n = st.tiles.shape[1]
        mid = [s for s in range(n) if st.loc[0, s] == K.MIDDLE]
        if int(st.turns[0]) == 0 and int(st.kind[0]) == K.Decision.SETUP or (self.rules.secret_hand and not st.turns[0]
                                                                            and len(mid) == n - P):
            first = mid[0] if mid else 0
            # with secret_hand the stacks keep their set-up numbers: the first P were dealt as the hands
            secret = self.rules.secret_hand and mid and first > 0
            numbered = f", numbered {first} to {first + len(mid) - 1}" if secret else ""
            aside = f" ({K.REMOVED[P]} tiles of each colour set aside)" if K.REMOVED[P] else ""
            hands = f"; stacks 0 to {first - 1} were dealt as the secret hands" if secret else ""
            lines = [f"{len(mid)} stacks of 3 in the middle{numbered}{aside}{hands}; seat 0 starts"]
            title = "set-up"
        else:  # a scripted position
            lines = [f"a position: {len(mid)} stacks in the middle; seat {int(st.cur[0])} to play"
                     + (f", {int(st.remaining[0])} final turn{'s' if st.remaining[0] != 1 else ''} left"
                        if st.remaining[0] >= 0 else "")]
            title = "position"
        lines += ["  " + "; ".join(self._stack(st, s) for s in mid[i:i + 4]) for i in range(0, len(mid), 4)]
        ev = {"event": "deal", "title": title, "lines": lines}
        if mid:
            ev["hidden"] = "stacks (top first): " + "; ".join(
                f"{s}: " + " ".join(NAMES[int(c)][:2] for c in st.tiles[0, s]) for s in mid)
        if self.rules.secret_hand:
            ev["private"] = {p: f"secret hand: {tiles(st.hand[0, p])}" for p in range(P)}
        return [ev]

    def knew(self, st: Any, seat: int) -> str:
        P = self.players
        parts = [f"hand {tiles(st.hand[0, seat])}"]
        parts.append("piles (S/A/H/W) " + "; ".join(
            ("me " if p == seat else f"seat {p} ") + piles(st.piles[0, p]) for p in range(P)))
        own = [int(x) for x in st.cards[0, seat] if x >= 0]
        if own:
            parts.append("own card: " + ", ".join(self._stack(st, s) for s in own))
        others = [f"seat {p} {int(st.hand_size[0, p])}" + (f" (known: {tiles(st.known[0, p])})" if st.known[0, p].any()
                                                          else "") for p in range(P) if p != seat]
        parts.append("hand sizes: " + ", ".join(others))
        parts.append(f"middle {int(st.mid_count[0])} stacks")
        if st.remaining[0] >= 0:
            parts.append(f"final turns left {int(st.remaining[0])}")
        return "; ".join(parts)

    def option(self, st: Any, opt: int) -> str:
        if int(st.kind[0]) == K.Decision.SETUP:
            return f"take {self._stack(st, opt)}"
        k, x = opt // K.OPTION_STRIDE, opt % K.OPTION_STRIDE
        if opt == K.PASS_OPTION:
            return "pass"
        if k == K.STUDY:
            return f"Study {self._stack(st, x)}"
        if k == K.TRAIN:
            return f"Train the top {NAMES[int(st.top[0, x])]} of stack {x} ({self._where(st, x)})"
        if k == K.TEST:
            return f"Test {a(NAMES[x])}"
        return f"option {opt}"

    def effect(self, before: Any, after: Any, opt: int, seat: int):
        P = self.players
        f: dict[str, Any] = {}
        if int(before.kind[0]) == K.Decision.SETUP:
            f["effect"] = f"takes {self._stack(before, opt)} into hand"
            f["private"] = {seat: "it held " + " ".join(NAMES[int(c)] for c in before.tiles[0, opt])}
            return f, []
        k, x = opt // K.OPTION_STRIDE, opt % K.OPTION_STRIDE
        if opt == K.PASS_OPTION:
            f["effect"] = "passes (nothing is legal)"
        elif k == K.STUDY:
            f["effect"] = f"moves {self._stack(before, x)} onto its Training Card"
        elif k == K.TRAIN:
            h = int(after.height[0, x])
            rest = (f"stack {x} now shows {NAMES[int(after.top[0, x])]} ({h} left)" if h > 0
                    else f"stack {x} is gone")
            f["effect"] = (f"takes the top {NAMES[int(before.top[0, x])]} of stack {x} from "
                           f"{self._where(before, x)} into hand; {rest}")
        elif k == K.TEST:
            moved = []
            for p in range(P):
                gain = int(after.piles[0, p, x] - before.piles[0, p, x]) - (1 if p == seat else 0)
                if gain:
                    moved.append(f"seat {p}'s card moves {gain} {NAMES[x]} tile{'s' if gain != 1 else ''} onto "
                                 f"its pile")
            f["effect"] = (f"plays {a(NAMES[x])} from hand onto its {NAMES[x]} pile; "
                           + ("; ".join(moved) if moved else f"no card stack shows {NAMES[x]} on top")
                           + "; piles now " + ", ".join(f"seat {p} {piles(after.piles[0, p])}" for p in range(P)))
        events = []
        if before.remaining[0] < 0 <= after.remaining[0]:
            order = [(seat + 1 + i) % P for i in range(P)]
            events.append({"event": "final_round", "title": "the middle is empty",
                           "lines": [f"seat {seat} emptied the middle (" + (
                                         "its last stack by Study" if k == K.STUDY else "its last tile by Train")
                                     + f"): every player has one final turn, in the order "
                                     f"{', '.join(map(str, order))}"]})
        return f, events

    def ending(self, st: Any, out: dict[str, np.ndarray]) -> list[str]:
        P = self.players
        if st.timeout[0]:
            return ["the turn limit stopped the game: nobody wins"]
        pl = np.asarray(st.piles[0], dtype=np.int64)
        hs = np.asarray(st.hand_size[0], dtype=np.int64)
        emptier = int(st.emptier[0])
        lines = [f"seat {p} reveals its hand: {tiles(st.hand[0, p])} ({int(hs[p])} tile{'s' if hs[p] != 1 else ''}); piles (S/A/H/W) "
                 f"{piles(pl[p])}, smallest {int(pl[p].min())}, largest {int(pl[p].max())}" for p in range(P)]
        res = K.winners(pl[None], hs[None], np.array([emptier]))
        low = int(pl.min(axis=1).min())
        if res["nobody"][0]:
            lines.append(f"every player's smallest pile is {low}: nobody is eliminated")
        else:
            out_ = [p for p in range(P) if res["eliminated"][0, p]]
            lines.append(f"the table's smallest pile is {low}: seat{'s' if len(out_) > 1 else ''} "
                         f"{', '.join(map(str, out_))} {'are' if len(out_) > 1 else 'is'} eliminated")
        alive = [p for p in range(P) if not res["eliminated"][0, p]]
        best = max(int(pl[p].max()) for p in alive)
        tied = [p for p in alive if int(pl[p].max()) == best]
        lines.append(f"largest surviving pile: {best} (seat{'s' if len(tied) > 1 else ''} "
                     f"{', '.join(map(str, tied))})")
        if len(tied) > 1:
            most = max(int(hs[p]) for p in tied)
            tied2 = [p for p in tied if int(hs[p]) == most]
            lines.append(f"tie-break, most tiles in hand ({most}): seat{'s' if len(tied2) > 1 else ''} "
                         f"{', '.join(map(str, tied2))}")
            if len(tied2) > 1:
                order = [(emptier + 1 + i) % P for i in range(P)]
                lines.append(f"tie-break, the later final turn (order {', '.join(map(str, order))}, seat "
                             f"{emptier} emptied the middle and played last)")
        lines.append(f"seat {int(res['winner'][0])} wins")
        return lines
