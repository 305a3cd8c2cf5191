"""Information-set Monte Carlo tree search (single-observer ISMCTS, Cowling, Powley and Whitehouse 2012),
written once for every engine of the decision protocol.

One search answers one decision of the searching seat (the observer). Each iteration

1. **determinizes**: the engine's sampler (``sample(ob, rs, S, R)``) writes into a private one-game
   scratch state a complete game that agrees with everything the observer's view ``ob`` shows, the
   hidden part drawn at random from the cards the observer has not seen; the search never sees the
   real state, only the view a strategy gets;
2. **selects** down one tree of the observer's information sets: at each node the legal options of this
   determinization are the available edges (availability counts, not the parent's visits, go into the
   exploration term), an untried available edge is taken first, else the edge maximising
   ``mean reward of the seat acting here + c * sqrt(ln(availability) / visits)``: every seat's node
   maximises its own reward, so the search models the other seats as playing for themselves;
3. **expands** one node (the first edge of the walk without a child);
4. **rolls out** from there with a compiled strategy of the game (each seat deciding from its own
   observation of the scratch state, which is the searcher's sample, not the truth) until the engine's
   horizon (``stop``: the game's end, or an earlier point where a whole game is too long);
5. **backs up** the engine's per-seat rewards in [0, 1] (``value``) along the walk.

The answer is the root edge visited most; of equal visits, the one with the highest mean reward of the
searching seat; of equal visits and equal means, the first listed (the oldest edge). (At a budget below
the number of root options every option is tried about once and the visits tie: the mean reward then
chooses, not the order in which the engine lists the options.)

Edges are keyed by the engine's ``label(S, R, g, opt, viewer)``: what the observer sees of an option
(e.g. the card a player puts down, not the hand slot it came from), with the decision kind, so that
the same edge means the same thing in every determinization. Nodes and edges live in arrays made once
per decision (edges of a node in a linked list of an edge pool); when the pool is full a new label is
left out of the tree and that walk leaves the tree there.

Randomness: one draw of the searcher's own stream seeds everything the search draws (determinizations,
untried-edge choices, the rollout seats' streams), so a decision depends only on the view and that
stream, never on jobs or chunks.

An engine that offers the search has, in its kernels module: ``sample``, ``label``, ``value``, ``stop``,
``n_seats(ob)``, ``scratch(ob)`` (a fresh one-game state tuple and rules tuple for the view's game, compiled with
reference counting since it allocates) and ``MAX_OPTIONS`` (the most options ``legal`` may list).
"""
from __future__ import annotations

import math
import types

import numba
import numpy as np

from .compiled import NO_REFCOUNT, REFCOUNT
from .lineup import MISSING as _NO_ANSWER  # what a rollout seat's dispatch returns for no answer
from .rng import Stream, _mix_scalar, draw, draw_base, integer_below, uniform_at

#: the most seats a game of the search may have (the per-seat reward sums of the edges)
MAX_SEATS = 8
#: rollout decisions before a rollout is cut (a safety net; the engines' horizons come first)
ROLLOUT_CAP = 100_000

#: numba options of the search's functions: cached (per game), without reference counting inside, with it
#: for the decision that allocates the tree
_INNER = dict(NO_REFCOUNT)
_OUTER = {**REFCOUNT, "cache": True, "nogil": True}


def make_search(kern, rollout_decide, rollout_classes, rollout_params, key):
    """The search over the engine whose kernels module is ``kern``, compiled and cached once per game
    (``key``: the game's name as an identifier). The rollout seats decide through ``rollout_decide``, the
    ``_decide(S, R, g, seat, cls, params, keys, counter, fw, iw) -> option`` of the compiled lineup of the
    game's heuristics (one function dispatching on the class and the decision kind, which LLVM inlines
    into the rollout loop): rollout strategy ``which`` is that lineup's class ``rollout_classes[which]``
    with the parameters ``rollout_params[which]``.

    Returns the compiled ``search(ob, iterations, c, which, horizon, searched, other, rng) -> option`` (a strategy's
    decision calls it with its parameters) and the compiled ``run_search`` it calls (for tests).

    The functions below the template line of this module are the search's code. Each game gets its own
    compiled copies of them (same code, the game's engine functions as their globals, a name of their
    own), so that numba caches them per game, apart from the lineups that play the search (their
    decision calls the cached search, see ``strategies/ismcts.py``)."""
    space = dict(globals())
    space.update(_legal=kern.legal, _observe=kern.observe, _step=getattr(kern, "step_inline", kern.step),
                 _sample=kern.sample, _label=kern.label, _value=kern.value, _stop=kern.stop, _scratch=kern.scratch,
                 _n_seats=kern.n_seats, _K=int(kern.MAX_OPTIONS), _rollout_decide=rollout_decide,
                 _ROLL_CLS=np.ascontiguousarray(rollout_classes, dtype=np.int64),
                 _ROLL_PRM=np.ascontiguousarray(rollout_params, dtype=np.float64))
    for template, options in ((_sample1, _INNER), (_run_search, _INNER), (_search, _OUTER)):
        name = f"{template.__name__.lstrip('_')}_{key}"
        fn = types.FunctionType(template.__code__, space, name, template.__defaults__, template.__closure__)
        fn.__qualname__ = name
        fn.__module__ = __name__
        fn.__doc__ = template.__doc__
        space[template.__name__] = numba.njit(**options)(fn)
    return space["_search"], space["_run_search"]


# ------------------------------------------------------------------------------------------------
# template: the search's code, compiled once per game by make_search (its names starting with an
# underscore and not defined here, such as _legal or _step, are the game's engine functions)

def _sample1(ob, rs, S, R):
    _sample(ob, rs, S, R)


def _run_search(ob, iterations, c, which, horizon, base, S, R, players, opts, labs, eidx, path, reward,
                n_first, n_actor, e_n, e_a, e_w, e_lab, e_opt, e_child, e_next, skeys, scount, rkeys, rcount,
                sfw, siw, rfw, riw, cls, prm):
    """The iterations of one search (all storage given); returns the chosen root option."""
    me = ob.me
    g0 = np.int64(0)  # the scratch state's one game, typed as the lanes type a game (not a literal 0), so
    #                   that the engine's cached step and legal serve the search too
    n_nodes = 1
    n_edges = 0
    n_first[0] = -1
    n_actor[0] = me
    cap_nodes = n_first.shape[0]
    cap_edges = e_n.shape[0]
    skeys[0] = np.uint64(base)
    scount[0] = 0
    for s in range(players):
        rkeys[s] = _mix_scalar(np.uint64(base) + np.uint64(s + 1) * np.uint64(0x9E3779B97F4A7C15))
        rcount[s] = 0
    # the rollout strategy in every seat (the rollout lineup's stream of seat s is rkeys[s])
    for s in range(MAX_SEATS):
        cls[s] = _ROLL_CLS[which]
        for k in range(_ROLL_PRM.shape[1]):
            prm[s, k] = _ROLL_PRM[which, k]
    rs = Stream(skeys, scount, 0, sfw, siw)
    for it in range(iterations):
        _sample1(ob, rs, S, R)
        node = 0
        depth = 0
        in_tree = True   # selection and expansion, then the rollout
        steps = 0        # rollout decisions
        forced = 0       # the first legal option, after a rollout option that failed ...
        forcing = 0      # ... 1 while it is to be played next, 2 once played (options may be negative: Sen's)
        e = -1
        while not _stop(S, R, g0, ob):
            if in_tree:
                actor = S[3][0]
                n = _legal(S, R, g0, opts)
                if n <= 0:
                    break
                kind = S[4][0]
                untried = 0
                for i in range(n):
                    labs[i] = kind * (np.int64(1) << 40) + _label(S, R, g0, opts[i], me)
                    e = n_first[node]
                    while e >= 0 and e_lab[e] != labs[i]:
                        e = e_next[e]
                    if e < 0 and n_edges < cap_edges:
                        e = n_edges
                        n_edges += 1
                        e_n[e] = 0
                        e_a[e] = 0
                        for p in range(players):
                            e_w[e, p] = 0.0
                        e_lab[e] = labs[i]
                        e_opt[e] = opts[i]
                        e_child[e] = -1
                        e_next[e] = n_first[node]
                        n_first[node] = e
                    eidx[i] = e
                    if e >= 0:
                        e_a[e] += 1
                        if e_n[e] == 0:
                            untried += 1
                pick = -1
                if untried > 0:
                    k = integer_below(uniform_at(draw_base(skeys, scount, 0), 0), untried)
                    for i in range(n):
                        e = eidx[i]
                        if e >= 0 and e_n[e] == 0:
                            if k == 0:
                                pick = i
                                break
                            k -= 1
                else:
                    best = -1.0e300
                    for i in range(n):
                        e = eidx[i]
                        if e < 0:
                            continue
                        v = e_w[e, actor] / e_n[e] + c * math.sqrt(math.log(e_a[e]) / e_n[e])
                        if v > best:
                            best = v
                            pick = i
                if pick < 0:  # no edge of this walk is in the tree (the pool is full): roll out from here
                    in_tree = False
                    continue
                e = eidx[pick]
                opt = opts[pick]
            else:
                if (horizon > 0 and steps >= horizon) or steps >= ROLLOUT_CAP:
                    break
                if forcing == 1:
                    opt = forced
                    forcing = 2
                else:
                    seat = S[3][0]
                    opt = _rollout_decide(S, R, g0, seat, cls[seat], prm, rkeys, rcount, rfw, riw)
            # the search's one rule step (the engine's cached step_inline, which LLVM inlines here, once)
            if opt != _NO_ANSWER and _step(S, R, g0, opt):
                if in_tree:
                    path[depth] = e
                    depth += 1
                    if e_child[e] < 0:  # expand: the walk's first edge without a child gets one
                        if n_nodes < cap_nodes:
                            e_child[e] = n_nodes
                            n_first[n_nodes] = -1
                            n_actor[n_nodes] = S[3][0]
                            n_nodes += 1
                        in_tree = False
                    else:
                        node = e_child[e]
                        if depth >= path.shape[0]:
                            in_tree = False
                else:
                    steps += 1
                    forcing = 0
                continue
            if in_tree:  # a tree edge that does not step: roll out from here
                in_tree = False
                continue
            if forcing == 2:  # even the first legal option failed
                break
            n = _legal(S, R, g0, opts)
            if n <= 0:
                break
            forced = opts[0]
            forcing = 1
        _value(S, R, g0, ob, reward)
        for d in range(depth):
            e = path[d]
            e_n[e] += 1
            for p in range(players):
                e_w[e, p] += reward[p]
    # the answer: the root edge visited most; of equal visits, the one of the highest mean reward of the
    # searching seat (an edge never visited ranks below any visited one); of equal visits and means, the
    # oldest (the list runs newest first: ">=" keeps the oldest of equals)
    best = -1
    most = -1
    mean = -1.0
    e = n_first[0]
    while e >= 0:
        m = e_w[e, me] / e_n[e] if e_n[e] > 0 else -1.0
        if e_n[e] > most or (e_n[e] == most and m >= mean):
            most = e_n[e]
            mean = m
            best = e_opt[e]
        e = e_next[e]
    return best


def _search(ob, iterations, c, which, horizon, searched, other, rng):
    """One decision of the searching seat of view ``ob``: ``iterations`` iterations with exploration
    constant ``c``, rollout strategy ``which`` and rollout horizon ``horizon``; ``rng`` the seat's stream.
    A decision of a kind not in the bit mask ``searched`` (-1: every kind) is not searched: the rollout
    candidate ``other`` answers it, from one determinization (which shows the seat what its view shows)."""
    iterations = max(np.int64(iterations), np.int64(1))
    g0 = np.int64(0)  # see _run_search
    base = draw(rng)
    S, R = _scratch(ob)
    players = min(_n_seats(ob), MAX_SEATS)
    opts = np.empty(_K, dtype=np.int64)
    skeys = np.empty(1, dtype=np.uint64)
    scount = np.zeros(1, dtype=np.int64)
    sfw = np.zeros((16, 64), dtype=np.float64)
    siw = np.zeros((16, 64), dtype=np.int64)
    # the root's options, from one determinization (the observer's own decision: every
    # determinization agrees on them); a forced decision needs no search
    skeys[0] = _mix_scalar(np.uint64(base) ^ np.uint64(0x5EA7C4))
    _sample1(ob, Stream(skeys, scount, 0, sfw, siw), S, R)
    n = _legal(S, R, g0, opts)
    if n == 1:
        return opts[0]
    if searched >= 0 and (np.int64(searched) >> np.int64(ob.kind)) & 1 == 0:
        me = ob.me
        prm = np.empty((MAX_SEATS, _ROLL_PRM.shape[1]), dtype=np.float64)
        for k in range(_ROLL_PRM.shape[1]):
            prm[me, k] = _ROLL_PRM[other, k]
        rkeys = np.empty(MAX_SEATS, dtype=np.uint64)
        rkeys[me] = _mix_scalar(np.uint64(base) ^ np.uint64(0xBA5E))
        rcount = np.zeros(MAX_SEATS, dtype=np.int64)
        return _rollout_decide(S, R, g0, me, _ROLL_CLS[other], prm, rkeys, rcount,
                               np.zeros((16, 64), dtype=np.float64), np.zeros((16, 64), dtype=np.int64))
    cap_nodes = iterations + 1
    cap_edges = iterations * 16 + _K
    return _run_search(ob, iterations, c, np.int64(which), np.int64(horizon), base, S, R,
                       players, opts, np.empty(_K, dtype=np.int64), np.empty(_K, dtype=np.int64),
                       np.empty(4096, dtype=np.int64), np.zeros(MAX_SEATS, dtype=np.float64),
                       np.empty(cap_nodes, dtype=np.int64), np.empty(cap_nodes, dtype=np.int64),
                       np.empty(cap_edges, dtype=np.int64), np.empty(cap_edges, dtype=np.int64),
                       np.empty((cap_edges, MAX_SEATS), dtype=np.float64), np.empty(cap_edges, dtype=np.int64),
                       np.empty(cap_edges, dtype=np.int64), np.empty(cap_edges, dtype=np.int64),
                       np.empty(cap_edges, dtype=np.int64), skeys, scount,
                       np.empty(MAX_SEATS, dtype=np.uint64), np.empty(MAX_SEATS, dtype=np.int64), sfw, siw,
                       np.zeros((16, 64), dtype=np.float64), np.zeros((16, 64), dtype=np.int64),
                       np.empty(MAX_SEATS, dtype=np.int64), np.empty((MAX_SEATS, _ROLL_PRM.shape[1]), dtype=np.float64))

