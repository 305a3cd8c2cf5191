"""Fan & Mallet told as a play-by-play: the ring, every card played and where it lands, each possession
with every follower's power and each kid ghost's bonus, the markers and the end."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..games import fan_and_mallet as K
from . import Narrator as Base

FACTIONS = ("White", "Black")


def follower(c: int) -> str:
    c = int(c)
    f, col = FACTIONS[int(K.CARD_FACTION[c])], K.COLOUR_NAMES[int(K.CARD_COLOUR[c])]
    if K.CARD_KID[c]:
        return f"{f} {col} kid ghost ({K.ABILITIES[int(K.CARD_COLOUR[c])]})"
    return f"{f} {col} {int(K.CARD_POWER[c])}"


class Narrator(Base):
    def _house(self, st: Any, h: int) -> str:
        return (f"house {h} ({FACTIONS[int(st.ring_faction[0, h])]} {K.COLOUR_NAMES[int(st.ring_colour[0, h])]})")

    def _lands(self, st: Any, seat: int, opt: int) -> int:
        c = int(st.hand[0, seat, opt])
        return int(K.landing(st.colours[0:1], st.pawn[0:1, seat], np.array([[K.CARD_COLOUR[c]]]))[0, 0])

    def _ring(self, st: Any) -> list[str]:
        out = []
        for h in range(K.N_HOUSES):
            cards = [int(c) for c in st.stack[0, h, :st.count[0, h]]]
            owner = int(st.owner[0, h])
            tail = f" possessed by {FACTIONS[owner]}" if owner >= 0 else ""
            out.append(f"{self._house(st, h)}: " + (", ".join(follower(c) for c in cards) or "empty") + tail)
        return out

    def _deal_event(self, st: Any, title: str) -> dict[str, Any]:
        lines = ["ring (clockwise): " + ", ".join(f"{h} {FACTIONS[int(st.ring_faction[0, h])]} "
                                                  f"{K.COLOUR_NAMES[int(st.ring_colour[0, h])]}"
                                                  for h in range(K.N_HOUSES))]
        started = [h for h in range(K.N_HOUSES) if st.count[0, h] > 0]
        lines += [self._ring(st)[h] for h in started]
        if started:  # a position set up in mid-game: the pawns stand on the houses they last moved to
            where = f"pawns stand on houses {int(st.pawn[0, 0])} (White) and {int(st.pawn[0, 1])} (Black)"
        else:  # a pawn is set just before the house its first search starts at
            nxt = [(int(st.pawn[0, f]) + 1) % K.N_HOUSES for f in (0, 1)]
            where = f"pawns stand just before houses {nxt[0]} (White) and {nxt[1]} (Black)"
        lines.append(f"{where}; "
                     f"{FACTIONS[int(st.to_move[0])]} (seat {int(st.to_move[0])}) plays first")
        private = {p: "hand: " + ", ".join(follower(c) for c in st.hand[0, p, :st.hand_n[0, p]]) for p in (0, 1)}
        return {"event": "deal", "title": title, "lines": lines, "private": private}

    def opening(self, st: Any) -> list[dict[str, Any]]:
        title = "deal" + (f" (game {int(st.game_no[0]) + 1} of the match)" if st.match_points else "")
        return [self._deal_event(st, title)]

    def knew(self, st: Any, seat: int) -> str:
        parts = ["hand: " + ", ".join(follower(c) for c in st.hand[0, seat, :st.hand_n[0, seat]])]
        parts.append(f"deck {K.DECK - int(st.deck_pos[0, seat])}")
        parts.append("searches start at houses " + ", ".join(
            f"{(int(st.pawn[0, f]) + 1) % K.N_HOUSES} ({FACTIONS[f]})" for f in (0, 1)))
        parts.append(f"markers White {int(st.markers[0, 0])}, Black {int(st.markers[0, 1])}")
        if st.match_points:
            parts.append(f"match points {int(st.points[0, 0])}-{int(st.points[0, 1])}")
        open_ = [f"{h}:{int(st.count[0, h])}" for h in range(K.N_HOUSES) if st.owner[0, h] < 0 and st.count[0, h]]
        if open_:
            parts.append("followers in open houses " + " ".join(open_))
        return "; ".join(parts)

    def option(self, st: Any, opt: int) -> str:
        seat = int(st.to_move[0])
        c = int(st.hand[0, seat, opt])
        if c < 0:
            return f"slot {opt} (empty)"
        h = self._lands(st, seat, opt)
        return f"{follower(c)} -> house {h}"

    def effect(self, before: Any, after: Any, opt: int, seat: int):
        c = int(before.hand[0, seat, opt])
        h = self._lands(before, seat, opt)
        n = int(before.count[0, h]) + 1
        f: dict[str, Any] = {"effect": f"plays {follower(c)} onto {self._house(before, h)}, its follower {n} of 5; "
                                       f"the pawn moves there"}
        events: list[dict[str, Any]] = []
        if n == K.STACK:
            stack = np.array([list(before.stack[0, h, :K.STACK - 1]) + [c]], dtype=np.int64)
            hf = int(before.ring_faction[0, h])
            sc = K.score_houses(stack, np.array([hf]))
            lines = []
            for i in range(K.STACK):
                cc = int(stack[0, i])
                base = int(K.CARD_POWER[cc])
                b = int(sc.bonus[0, i])
                lines.append(f"{i + 1}. {follower(cc)}: power {base}"
                             + (f" + {K.ABILITIES[int(K.CARD_COLOUR[cc])]} bonus {b} = {base + b}" if K.CARD_KID[cc]
                                else ""))
            tw, tb = int(sc.totals[0, 0]), int(sc.totals[0, 1])
            win = int(sc.winner[0])
            tie = bool(sc.tie[0])
            first = not bool(before.first_done[0])
            k = 2 if first else 1
            lines.append(f"White {tw}, Black {tb}: " + (f"a tie goes to the house's faction, {FACTIONS[hf]}" if tie
                                                        else f"{FACTIONS[win]} has the most power"))
            lines.append(f"{FACTIONS[win]} places {k} marker{'s' if k > 1 else ''}"
                         + (" (the first possession of the game)" if first else ""))
            m = [int(before.markers[0, 0]) + (k if win == 0 else 0), int(before.markers[0, 1]) + (k if win == 1 else 0)]
            lines.append(f"markers: White {m[0]}, Black {m[1]}")
            events.append({"event": "possession", "title": f"{self._house(before, h)} is possessed", "lines": lines,
                           "house": h, "totals": [tw, tb], "faction": win})
            if max(m) >= K.TARGET:
                w = 0 if m[0] >= K.TARGET else 1
                end = [f"{FACTIONS[w]} has placed {m[w]} markers: it wins this game at once"]
                if before.match_points:
                    gained = K.TARGET - m[1 - w]
                    pts = [int(x) for x in after.points[0]]
                    end.append(f"{FACTIONS[w]} scores the loser's {gained} unused markers: match points "
                               f"{pts[0]}-{pts[1]} (target {before.match_points})")
                events.append({"event": "game_won", "title": f"{FACTIONS[w]} wins the game", "lines": end})
                if not after.done[0]:
                    events.append(self._deal_event(after, f"deal (game {int(after.game_no[0]) + 1} of the match, "
                                                          f"the loser {FACTIONS[int(after.to_move[0])]} starts)"))
                return f, events
        if after.hand_n[0, seat] == before.hand_n[0, seat] and before.deck_pos[0, seat] < K.DECK:
            f["private"] = {seat: f"draws {follower(after.hand[0, seat, opt])}"}
        elif before.deck_pos[0, seat] >= K.DECK:
            f["effect"] += "; its deck is empty: no draw"
        return f, events

    def ending(self, st: Any, out: dict[str, np.ndarray]) -> list[str]:
        if st.timeout[0]:
            return ["the turn limit stopped the game: nobody wins"]
        lines = [f"markers: White {int(st.markers[0, 0])}, Black {int(st.markers[0, 1])}; houses possessed "
                 f"{int((st.owner[0] >= 0).sum())} of 12"]
        if st.match_points:
            lines.append(f"match points: White {int(st.points[0, 0])}, Black {int(st.points[0, 1])} "
                         f"(target {st.match_points}; the score is the match points)")
        lines.append(f"{FACTIONS[int(st.winner[0])]} (seat {int(st.winner[0])}) wins")
        return lines
