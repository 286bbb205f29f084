"""Item 3 (one protocol): malformed answers that pass 14's set did not try
(``hp26s.protocol:Bad...``). Each answers one at its first chance; ``protocol.sh`` plays
each in the default mode and under ``--isolate`` and compares each game's failure."""

from __future__ import annotations

from cardgame import actions as A
from sims.strategies.planner import Planner


class Bad(Planner):
    PHASE = "turn"

    def decide(self, view):
        keep = view.phase in (A.Phase.SETUP_KEEP, A.Phase.KEEP_DRAWN)
        if (self.PHASE == "keep") == keep and not getattr(self, "_done", False):
            self._done = True
            return self.bad(view)
        return super().decide(view)

    def bad(self, view):  # pragma: no cover - overridden
        raise NotImplementedError


class MyInt(int):
    pass


class MyStr(str):
    pass


class MyTuple(tuple):
    pass


class SubDraw(A.DrawFaceUp):
    """A subclass of the action class (``isinstance`` true, ``type is`` false)."""

    __slots__ = ()


class Boom:
    """An object whose every description raises."""

    def __repr__(self) -> str:
        raise RuntimeError("repr")

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("eq")

    __hash__ = None  # type: ignore[assignment]


BAD = {
    "BadSlotDigits": ("turn", lambda v: A.DrawFaceUp(10**5000)),
    "BadSlotIntSub": ("turn", lambda v: A.DrawFaceUp(MyInt(0))),
    "BadSlotStrSub": ("turn", lambda v: A.DrawFaceUp(MyStr("0"))),
    "BadSlotSurrogate": ("turn", lambda v: A.DrawFaceUp("\ud800")),
    "BadSubclass": ("turn", lambda v: SubDraw(0)),
    "BadBoom": ("turn", lambda v: A.DrawFaceUp(Boom())),
    "BadBoomAction": ("turn", lambda v: Boom()),
    "BadKeepTupleSub": ("keep", lambda v: A.KeepDestinations(MyTuple(v.offer_ids[:2]))),
    "BadKeepDigits": ("keep", lambda v: A.KeepDestinations((10**5000,))),
    "BadKeepMillion": ("keep", lambda v: A.KeepDestinations(tuple(range(1_000_000)))),
}


def _bad(name: str, phase: str, make) -> type:
    return type(name, (Bad,), {"PHASE": phase, "bad": lambda self, view: make(view)})


for _name, (_phase, _make) in BAD.items():
    globals()[_name] = _bad(_name, _phase, _make)
