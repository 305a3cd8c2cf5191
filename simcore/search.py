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

The answer is the root edge visited most (the first of equals).

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

import numba
import numpy as np

from .compiled import NO_REFCOUNT, REFCOUNT
from .rng import Stream, _mix_scalar, draw, draw_base, integer_below, uniform_at

#: the most seats a game of the search may have (the per-seat reward sums of the edges)
MAX_SEATS = 8
#: rollout decisions before a rollout is cut (a safety net; the engines' horizons come first)
ROLLOUT_CAP = 100_000

_INNER = {k: v for k, v in NO_REFCOUNT.items() if k != "cache"}


def make_search(kern, rollout, name="search", module=__name__):
    """The search over the engine whose kernels module is ``kern``, with ``rollout(ob, which, rng)`` as
    the rollout policy (``which`` selects among the game's rollout strategies; it returns an option code,
    or -1 for none). Returns the compiled decision body ``search(ob, prm, rng) -> option`` (``prm`` has
    ``iterations``, ``c``, ``rollout``, ``horizon``) and the compiled ``run_search`` it calls (for tests:
    it also gives the root's statistics). ``search`` is given the qualified name ``name`` in ``module``
    (where the caller must bind it), so that compiled lineups find it again in a fresh process."""
    step = getattr(kern, "step_inline", kern.step)
    legal_k, observe, sample, label, value, stop, scratch, n_seats = (
        kern.legal, kern.observe, kern.sample, kern.label, kern.value, kern.stop, kern.scratch, kern.n_seats)
    K = int(kern.MAX_OPTIONS)

    # Each engine function that numba inlines appears once in the compiled search (compile time grows with
    # every inlined copy of a rule step): the tree's steps and the determinizations are calls (a call
    # hands the one-game state tuple over by value, a few hundred nanoseconds, a few times per
    # iteration), the rollout is one call with a single inlined step in its loop.
    @numba.njit(**_INNER)
    def step1(S, R, opt):
        return step(S, R, 0, opt)

    @numba.njit(**_INNER)
    def sample1(ob, rs, S, R):
        sample(ob, rs, S, R)

    @numba.njit(**_INNER)
    def roll(S, R, ob, which, horizon, rkeys, rcount, rfw, riw, opts):
        """Play game 0 of ``S`` on with the rollout policy to the horizon (an option the policy gets
        wrong is replaced by the first legal one)."""
        steps = 0
        forced = -1
        while not stop(S, R, 0, ob) and (horizon <= 0 or steps < horizon) and steps < ROLLOUT_CAP:
            if forced >= 0:
                opt = forced
                forced = -2
            else:
                seat = S[3][0]
                opt = rollout(observe(S, R, 0, seat), which, Stream(rkeys, rcount, seat, rfw, riw))
            if opt >= 0 and step(S, R, 0, opt):
                steps += 1
                forced = -1
                continue
            if forced == -2:  # even the first legal option failed
                break
            n = legal_k(S, R, 0, opts)
            if n <= 0:
                break
            forced = opts[0]

    @numba.njit(**_INNER)
    def run_search(ob, iterations, c, which, horizon, base, S, R, players, opts, labs, eidx, path, reward,
                   n_first, n_actor, e_n, e_a, e_w, e_lab, e_opt, e_child, e_next, skeys, scount, rkeys, rcount,
                   sfw, siw, rfw, riw):
        """The iterations of one search (all storage given); returns the chosen root option."""
        me = ob.me
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
        rs = Stream(skeys, scount, 0, sfw, siw)
        for it in range(iterations):
            sample1(ob, rs, S, R)
            node = 0
            depth = 0
            # selection and expansion
            while not stop(S, R, 0, ob):
                actor = S[3][0]
                n = legal_k(S, R, 0, opts)
                if n <= 0:
                    break
                kind = S[4][0]
                untried = 0
                for i in range(n):
                    labs[i] = kind * (np.int64(1) << 40) + label(S, R, 0, opts[i], me)
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
                    break
                e = eidx[pick]
                if not step1(S, R, opts[pick]):
                    break
                path[depth] = e
                depth += 1
                if e_child[e] < 0:
                    if n_nodes < cap_nodes:
                        e_child[e] = n_nodes
                        n_first[n_nodes] = -1
                        n_actor[n_nodes] = S[3][0]
                        n_nodes += 1
                    break
                node = e_child[e]
                if depth >= path.shape[0]:
                    break
            # rollout
            roll(S, R, ob, which, horizon, rkeys, rcount, rfw, riw, opts)
            value(S, R, 0, ob, reward)
            for d in range(depth):
                e = path[d]
                e_n[e] += 1
                for p in range(players):
                    e_w[e, p] += reward[p]
        best = -1
        most = -1
        e = n_first[0]
        while e >= 0:
            if e_n[e] >= most:  # the list runs newest first: ">=" keeps the oldest of equals
                most = e_n[e]
                best = e_opt[e]
            e = e_next[e]
        return best

    def search(ob, prm, rng):
        iterations = max(np.int64(prm.iterations), np.int64(1))
        base = draw(rng)
        S, R = scratch(ob)
        players = min(n_seats(ob), MAX_SEATS)
        opts = np.empty(K, dtype=np.int64)
        skeys = np.empty(1, dtype=np.uint64)
        scount = np.zeros(1, dtype=np.int64)
        sfw = np.zeros((16, 64), dtype=np.float64)
        siw = np.zeros((16, 64), dtype=np.int64)
        # the root's options, from one determinization (the observer's own decision: every
        # determinization agrees on them); a forced decision needs no search
        skeys[0] = _mix_scalar(np.uint64(base) ^ np.uint64(0x5EA7C4))
        sample1(ob, Stream(skeys, scount, 0, sfw, siw), S, R)
        n = legal_k(S, R, 0, opts)
        if n == 1:
            return opts[0]
        cap_nodes = iterations + 1
        cap_edges = iterations * 16 + K
        return run_search(ob, iterations, prm.c, np.int64(prm.rollout), np.int64(prm.horizon), base, S, R,
                          players, opts, np.empty(K, dtype=np.int64), np.empty(K, dtype=np.int64),
                          np.empty(4096, dtype=np.int64), np.zeros(MAX_SEATS, dtype=np.float64),
                          np.empty(cap_nodes, dtype=np.int64), np.empty(cap_nodes, dtype=np.int64),
                          np.empty(cap_edges, dtype=np.int64), np.empty(cap_edges, dtype=np.int64),
                          np.empty((cap_edges, MAX_SEATS), dtype=np.float64), np.empty(cap_edges, dtype=np.int64),
                          np.empty(cap_edges, dtype=np.int64), np.empty(cap_edges, dtype=np.int64),
                          np.empty(cap_edges, dtype=np.int64), skeys, scount,
                          np.empty(MAX_SEATS, dtype=np.uint64), np.empty(MAX_SEATS, dtype=np.int64), sfw, siw,
                          np.zeros((16, 64), dtype=np.float64), np.zeros((16, 64), dtype=np.int64))

    search.__qualname__ = search.__name__ = name
    search.__module__ = module
    search = numba.njit(**REFCOUNT)(search)
    return search, run_search
