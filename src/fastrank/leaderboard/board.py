"""fastrank.Leaderboard: ties, ranking styles, score rules, seasons, friends.

A board is a sorted set of composite scores (points in the high bits, the
tie-break time in the low bits: see :mod:`fastrank.leaderboard.scorebits`) plus, under
the same hash tag ``{lb:<name>[:<season>]}`` (name and season with ``%``,
``:``, ``{``, ``}`` and ``~`` percent-escaped: ``key_part``):

- ``...:dense`` and ``...:counts``: the distinct point values and how many
  players hold each (dense-ranked boards only), kept in step by the same
  scripts that write the board, so a dense rank is one ZCOUNT;
- ``...:meta``: the season's state (frozen after a rollover);
- ``...:info``: each player's entry data as JSON text.

Every write that reads first (rules, tie-break time, the dense companion) is
one Lua script (``fastrank/leaderboard/scripts``), so it is atomic on every backend and
runs on a Redis Cluster (all keys share the hash tag). Reads are single
commands, one pipeline, or one script that only reads: one round trip each.

The domain code here speaks only redis-py command methods and scripts. Each
method is written once, as a *plan* (a generator that yields what to send and
receives the replies: :mod:`fastrank.runner`); :class:`Leaderboard` runs the
plans on a sync client and ``fastrank.asyncio.Leaderboard`` awaits them on an
asyncio client.

Ranking styles (``ranking=``), for points 50, 40, 40, 30:

- ``"ordinal"``   1, 2, 3, 4 (ties ordered by the tie-break): ZREVRANK;
- ``"competition"`` 1, 2, 2, 4: 1 + ZCOUNT of the strictly better scores;
- ``"dense"``     1, 2, 2, 3: 1 + ZCOUNT of the strictly better distinct values.

Each is O(log n) per player.
"""
from __future__ import annotations

import functools
import json
import time
import weakref
from datetime import datetime, timedelta, timezone, tzinfo
from typing import (
    Any,
    Callable,
    Dict,
    Iterator,
    List,
    Literal,
    Mapping,
    NamedTuple,
    Optional,
    Protocol,
    Sequence,
    Tuple,
    TypeVar,
    Union,
    overload,
)

from redis.exceptions import ResponseError

from fastrank import errors as _errors
from fastrank.errors import BoardConfigMismatch, SeasonFrozen
from fastrank.leaderboard.descriptor import (DESCRIBE, REDESCRIBE, SCHEMA, UNSET, Unset, check_given, descriptor_key, flat,
                                             stored_of, tz_of, tz_text)
from fastrank.leaderboard._entries import (board_entries, board_friend_entries, board_range_entries, board_top_entries,
                                           friend_members, reply_points, submit_change)
from fastrank.leaderboard.periods import PERIODS, expiry_ms, season_of, zone
from fastrank.runner import (AsyncFace, Call, Direct, Plan, Run, Steps, SyncFace, checked_client, direct_call, direct_run,
                             packaged_script, Pages, run, run_async, steps, twin, twin_pages)
from fastrank.leaderboard.parts import (SIZE_LIMIT, Ranker, as_text, count_arg, info_of, key_part, page_slice,
                                         player_id, tag_part)
from fastrank.leaderboard.scorebits import Points, ScoreCodec, epoch_seconds
from fastrank.leaderboard.snapshots import SNAPSHOT, RankChange, SnapshotInfo, SnapshotView

_T = TypeVar("_T")
_SelfSubmits = TypeVar("_SelfSubmits", bound="_Submits")
PlayerId = Union[str, bytes, int]
When = Union[int, float, datetime, None]

RULES = ("incr", "decr", "best", "set")
RANKINGS = {"ordinal": "o", "competition": "c", "dense": "d"}
DEFAULT_BUCKETS = (1.0, 5.0, 10.0, 25.0, 50.0)
BOARD_DEFAULTS: Dict[str, Any] = {"season": None, "order": "desc", "tiebreak": "earliest", "ranking": "ordinal",
                                  "rule": "incr", "point_bits": 20, "time_bits": 33, "period": None, "tz": None,
                                  "retain": None, "epoch": 0, "tick": "1s", "subscore_bits": 0,
                                  "score_form": "bits"}
"""The options a board stores in its descriptor, and a new board's defaults."""

_QUIET_DEFAULTS = {"epoch": "0", "tick": "1s", "subscore_bits": "0", "score_form": "bits"}
"""Options newer than the descriptor's first fields: stored only when not the
default (a descriptor without them, from before they existed, means the
default), so a default board's descriptor is what it always was."""


def _option_texts(options: Mapping[str, Any]) -> Dict[str, str]:
    """Stored options as the descriptor's text ("" for None)."""
    out = {}
    for option, value in options.items():
        if value is None:
            out[option] = ""
        elif option == "tz":
            out[option] = tz_text(zone(value))
        else:
            out[option] = str(value)
        if _QUIET_DEFAULTS.get(option) == out[option]:
            out[option] = ""
    return out


def _options_of(stored: Mapping[str, str]) -> Dict[str, Any]:
    """The stored options of a descriptor's text (:func:`_option_texts`'s inverse)."""
    options: Dict[str, Any] = {}
    for option, default in BOARD_DEFAULTS.items():
        text = stored.get(option, "")
        if option == "tz":
            options[option] = tz_of(text)
        elif option in ("point_bits", "time_bits", "epoch", "subscore_bits"):
            options[option] = int(text) if text else default
        elif option == "retain":
            options[option] = int(text) if text else None
        elif option in ("order", "ranking", "rule", "tick", "score_form"):
            options[option] = text or default
        else:  # season, tiebreak, period: "" is None
            options[option] = text or None
    return options

SUBMIT = packaged_script("submit")
REMOVE = packaged_script("remove")
STANDING = packaged_script("standing")
RANGE = packaged_script("range")
FRIENDS = packaged_script("friends")
SET_INFO = packaged_script("set_info")


class Entry(NamedTuple):
    """One row of a board: ``rank`` (1-based, in the board's style), ``player``, ``points``.

    ``global_rank`` is set by :meth:`Leaderboard.friends` (where ``rank`` is
    the rank among friends); ``info`` by the ``with_info=True`` reads.
    """

    rank: int
    player: str
    points: Points
    global_rank: Optional[int] = None
    info: Optional[Dict[str, Any]] = None

    def __repr__(self) -> str:
        extra = "" if self.global_rank is None else f", global_rank={self.global_rank}"
        if self.info is not None:
            extra += f", info={self.info!r}"
        return f"Entry(rank={self.rank}, player={self.player!r}, points={self.points!r}{extra})"


class Change(NamedTuple):
    """What a ``submit(..., with_rank=True)`` did: new points and rank, the
    rank before (None if the player was new) and the players it overtook,
    nearest first."""

    points: Points
    rank: int
    previous_rank: Optional[int]
    passed: List[str]


def _one_based(index: Optional[int]) -> Optional[int]:
    return None if index is None else int(index) + 1


def _as_list(items: Any) -> List[Any]:
    """A reply's array as a list (the list itself when it is one: not copied)."""
    return items if type(items) is list else list(items)


def _one_more(count: int) -> int:
    return int(count) + 1


def _rank_of_standing(reply: Any) -> Optional[int]:
    """standing.lua's reply for a rank style: the rank, None if absent."""
    return None if not reply else int(reply[1])


def _standing_of(reply: Any) -> Optional[Tuple[int, int, int]]:
    """standing.lua's reply for "p": (better, worse, count), None if absent."""
    if not reply:
        return None
    _, better, worse, count = reply
    return int(better), int(worse), int(count)


def _percentile(standing: Optional[Tuple[int, int, int]]) -> Optional[float]:
    if standing is None:
        return None
    _, worse, count = standing
    return 100.0 * worse / count


def _no_entries() -> Steps[List[Any]]:
    """The plan of an empty read: nothing to send."""
    return []
    yield  # a generator that sends nothing  # noqa: unreachable


_TopCache = Dict[str, Dict[Tuple[Any, ...], Tuple[float, List[Entry]]]]
_TOP_CACHES: "weakref.WeakKeyDictionary[Any, _TopCache]" = weakref.WeakKeyDictionary()
"""client → board name → (keys, n, with_info, style, configuration) → (expiry, entries)."""


class BoardPlans:
    """The configuration of a board and its methods as plans (no I/O here).

    :class:`Leaderboard` (sync) and ``fastrank.asyncio.Leaderboard`` expose
    each ``_plan_<name>`` as the method ``<name>``.
    """

    def __init__(
        self,
        client: Any,
        name: str,
        *,
        season: Union[str, int, None, Unset] = UNSET,
        order: Union[str, Unset] = UNSET,
        tiebreak: Union[str, None, Unset] = UNSET,
        ranking: Union[str, Unset] = UNSET,
        rule: Union[str, Unset] = UNSET,
        point_bits: Union[int, Unset] = UNSET,
        time_bits: Union[int, Unset] = UNSET,
        period: Union[str, None, Unset] = UNSET,
        tz: Union[str, tzinfo, None, Unset] = UNSET,
        retain: Union[int, None, Unset] = UNSET,
        epoch: Union[int, float, datetime, Unset] = UNSET,
        tick: Union[str, Unset] = UNSET,
        subscore_bits: Union[int, Unset] = UNSET,
        score_form: Union[str, Unset] = UNSET,
        buckets: Sequence[float] = DEFAULT_BUCKETS,
        cache_ttl: Optional[float] = None,
        passed: int = 3,
    ) -> None:
        given = {"season": season, "order": order, "tiebreak": tiebreak, "ranking": ranking, "rule": rule,
                 "point_bits": point_bits, "time_bits": time_bits, "period": period, "tz": tz, "retain": retain,
                 "epoch": epoch if epoch is UNSET else epoch_seconds(epoch), "tick": tick,
                 "subscore_bits": subscore_bits, "score_form": score_form}
        #: the stored options this process gave (checked against the descriptor when the board opens)
        self._given: Dict[str, Any] = {k: v for k, v in given.items() if v is not UNSET}
        if score_form == "decimal" and any(self._given.get(bits, BOARD_DEFAULTS[bits]) != BOARD_DEFAULTS[bits]
                                           for bits in ("point_bits", "time_bits")):
            raise ValueError("score_form='decimal' has its own layout: it takes no point_bits or time_bits")
        if sorted(buckets) != list(buckets) or not buckets or not all(0 < b <= 100 for b in buckets):
            raise ValueError(f"buckets must be increasing percentages in (0, 100], not {buckets!r}")
        if cache_ttl is not None and not cache_ttl >= 0:
            raise ValueError(f"cache_ttl must be >= 0 seconds or None, not {cache_ttl!r}")
        self._client = checked_client(self, client)
        self.name = tag_part(name, "name")
        #: the name as it appears in the keys (``key_part``; a shard's is set by its sharded board)
        self._key_name = key_part(self.name)
        #: where the board's descriptor lives (None on a shard: its sharded board's holds it)
        self._descriptor_key: Optional[str] = descriptor_key(self.name)
        self.buckets = tuple(float(b) for b in buckets)
        self.cache_ttl = cache_ttl
        self.passed = count_arg(passed, "passed")
        if self.passed > 1000:
            raise ValueError(f"passed names at most 1000 players, not {passed}")
        self._caches: _TopCache
        try:  # one top-N cache per client, shared by this process's boards on it
            self._caches = _TOP_CACHES.setdefault(client, {})
        except TypeError:  # a client without weak references: this board's own
            self._caches = {}
        #: whether the descriptor was read (or written) by this instance
        self._opened = False
        self._configure({**BOARD_DEFAULTS, **self._given})
        self._made()

    def _configure(self, options: Dict[str, Any]) -> None:
        """Check and take the stored options (those of :data:`BOARD_DEFAULTS`)."""
        season, order, tiebreak, ranking = options["season"], options["order"], options["tiebreak"], options["ranking"]
        rule, point_bits, time_bits = options["rule"], options["point_bits"], options["time_bits"]
        period, tz, retain = options["period"], options["tz"], options["retain"]
        epoch, tick, subscore_bits = options["epoch"], options["tick"], options["subscore_bits"]
        self.codec = ScoreCodec(order=order, tiebreak=tiebreak, point_bits=point_bits, time_bits=time_bits,
                                epoch=epoch, tick=tick, subscore_bits=subscore_bits, form=options["score_form"])
        if ranking not in RANKINGS:
            raise ValueError(f"ranking must be one of {sorted(RANKINGS)}, not {ranking!r}")
        self.rule = self._rule(rule)
        if period is not None and period not in PERIODS:
            raise ValueError(f"period must be one of {PERIODS} or None, not {period!r}")
        if period is not None and season is not None:
            raise ValueError("a periodic board derives its season from the time: give period or season, not both")
        if retain is not None and period is None:
            raise ValueError("retain needs a period")
        if retain is not None:
            count_arg(retain, "retain")
        self.season = None if season is None else tag_part(season, "season")
        self.order = order
        self.tiebreak = tiebreak
        self.ranking = ranking
        self.point_bits = point_bits
        self.time_bits = time_bits
        self.period = period
        self.tz = zone(tz)
        self.retain = retain
        self.epoch = epoch
        self.tick = tick
        self.subscore_bits = subscore_bits
        self.score_form = self.codec.form
        self.rank_style = RANKINGS[ranking]
        #: ticks below which a plain submit (the board's rule but "decr", an
        #: int, at a whole second or now) takes _plan_submit's short path; 0:
        #: never (a period, subscores, or a subclass writing elsewhere)
        self._plain_ticks = (self.codec.tick_limit if period is None and not self.codec.subscore_bits
                             and self.rule != "decr" and type(self)._write_target is BoardPlans._write_target
                             else 0)
        self.script_config = (b"%d" % self.codec.scale, b"1" if self.codec.desc else b"0",
                      b"1" if self.codec.script_mirrored else b"0", b"1" if ranking == "dense" else b"0",
                      b"%d" % self.codec.max_points)
        # the short path's constant words, as every client sends them (bytes)
        self._plain_head = (*self.script_config, self.rule.encode())
        self._plain_styles = (b"", self.rank_style.encode())
        self._plain_tail = (b"%d" % self.passed, b"0")
        self._keys: Dict[Optional[str], Tuple[str, str, str, str, str]] = {}
        self._bytes_keys: Dict[Tuple[str, ...], Tuple[bytes, ...]] = {}
        # top(): the parser of each rank style's replies (it remembers the last one)
        self._top_parsers: Dict[str, Callable[[List[Any]], List[Entry]]] = {}
        # range.lua's reply parser of each (style, with_info): C all the way (a partial of board_range_entries)
        self._range_parsers: Dict[Tuple[str, bool], Callable[[Any], List[Entry]]] = {}
        # top(): the (reusable) plan of each (season, n, with_info, ranking) asked for
        self._top_plans: Dict[Tuple[Any, ...], Direct[List[Entry]]] = {}
        self._top_by_n: Dict[int, Tuple[Optional[str], Direct[List[Entry]]]] = {}  # top(n)'s, by n
        self._rank_method = "zrevrank" if self.codec.desc else "zrank"

    # -- the descriptor (fastrank.leaderboard.descriptor) ------------------------

    def descriptor(self) -> Dict[str, str]:
        """The stored options as the descriptor holds them (text)."""
        texts = _option_texts(self._options())
        return {"schema": SCHEMA, "kind": "board",
                **{k: v for k, v in texts.items() if v or k not in _QUIET_DEFAULTS}}

    @property
    def descriptor_key(self) -> Optional[str]:
        """The key of the board's descriptor (None on a shard of a sharded board)."""
        return self._descriptor_key

    def _options(self) -> Dict[str, Any]:
        return {"season": self.season, "order": self.order, "tiebreak": self.tiebreak, "ranking": self.ranking,
                "rule": self.rule, "point_bits": self.point_bits, "time_bits": self.time_bits,
                "period": self.period, "tz": self.tz, "retain": self.retain, "epoch": self.epoch,
                "tick": self.tick, "subscore_bits": self.subscore_bits, "score_form": self.score_form}

    def _plan_open(self) -> Steps[None]:
        """Read the board's descriptor, writing it first if the board is new;
        BoardConfigMismatch if an option given differs from a stored one."""
        assert self._descriptor_key is not None, "a shard is opened by its sharded board"
        reply = yield Run(DESCRIBE, (self._descriptor_key,), flat(self.descriptor()))
        self._take(stored_of(reply))
        self._opened = True

    def _take(self, stored: Dict[str, str], kind: str = "board") -> None:
        """Check the options given against a stored descriptor, then use the stored ones."""
        if stored.get("schema") != SCHEMA or stored.get("kind") != kind:
            raise BoardConfigMismatch("leaderboard", self.name, "kind",
                                      f"{stored.get('kind')} (schema {stored.get('schema')})", f"{kind} (schema {SCHEMA})")
        options = _options_of(stored)
        check_given("leaderboard", self.name, stored, _option_texts(self._given), self._given, options)
        if _option_texts(options) != _option_texts(self._options()):
            self._configure(options)
            self.forget_cached()

    def _made(self) -> None:
        """Called at the end of construction: a sync face opens the board here."""

    def __repr__(self) -> str:
        return (f"{type(self).__name__}({self.name!r}, season={self.current_season()!r}, order={self.order!r}, "
                f"tiebreak={self.tiebreak!r}, ranking={self.ranking!r}, rule={self.rule!r})")

    # -- configuration helpers -------------------------------------------------

    @staticmethod
    def _rule(rule: str) -> str:
        if rule not in RULES:
            raise ValueError(f"rule must be one of {RULES}, not {rule!r}")
        return rule

    def _style_of(self, ranking: Optional[str]) -> str:
        if ranking is None:
            return self.rank_style
        if ranking not in RANKINGS:
            raise ValueError(f"ranking must be one of {sorted(RANKINGS)}, not {ranking!r}")
        if ranking == "dense" and self.ranking != "dense":
            raise ValueError("dense ranks need a board made with ranking='dense' (it keeps the distinct values)")
        return RANKINGS[ranking]

    def current_season(self) -> Optional[str]:
        """The season reads use by default (the current period on a periodic board)."""
        if self.period is None:
            return self.season
        return season_of(self.period, datetime.now(timezone.utc), self.tz)

    def keys(self, season: Optional[Union[str, int]] = None) -> Tuple[str, str, str, str, str]:
        """The board's keys for ``season`` (default: the current one): board, dense, counts, meta, info."""
        if season is None:
            chosen = self.season if self.period is None else self.current_season()
        else:
            chosen = tag_part(season, "season")
        keys = self._keys.get(chosen)
        if keys is None:
            base = (f"{{lb:{self._key_name}}}" if chosen is None
                    else f"{{lb:{self._key_name}:{key_part(chosen)}}}")
            keys = self._keys[chosen] = (base, base + ":dense", base + ":counts", base + ":meta", base + ":info")
        return keys

    def _encoded(self, keys: Tuple[str, ...]) -> Tuple[bytes, ...]:
        """``keys`` as bytes, the form scripts are sent with (cached by the key tuple)."""
        encoded = self._bytes_keys.get(keys)
        if encoded is None:
            encoded = self._bytes_keys[keys] = tuple(k.encode() for k in keys)
        return encoded

    def _write_target(self, tick: int) -> Tuple[Tuple[str, str, str, str, str], int]:
        """The keys a write earned at ``tick`` goes to, and their expiry (unix ms, 0 = none)."""
        if self.period is None:
            return self.keys(), 0
        season, expire = self._period_of(tick)
        return self.keys(season), expire

    def _period_of(self, tick: int) -> Tuple[str, int]:
        """A periodic board's season holding ``tick`` and its expiry (unix ms,
        0 = none); PeriodClosed when its retention has already dropped it."""
        assert self.period is not None
        moment = datetime.fromtimestamp(tick, timezone.utc)
        season = season_of(self.period, moment, self.tz)
        expire = expiry_ms(self.period, moment, self.tz, self.retain)
        if expire and expire <= time.time() * 1000:
            raise _errors.PeriodClosed(
                f"leaderboard {self.name!r}: a write dated {moment.isoformat()} belongs to {self.period} "
                f"{season}, which retain={self.retain} no longer keeps")
        return season, expire

    # -- the board protocol: what code that drives the board's scripts itself
    #    (the score service) uses, besides the public methods: the client,
    #    the keys (``keys``), the codec, the scripts' configuration words
    #    (``script_config``, ARGV 1..5) and rank style (``rank_style``), the
    #    error translation, the cache to forget, and the plans.

    @property
    def client(self) -> Any:
        """The redis-py client (or Engine) the board runs on."""
        return self._client

    def plan(self, method: str, *args: Any, **kwargs: Any) -> Plan[Any]:
        """The plan of the public method ``method`` (``"top"``, ``"rank"``...),
        to run inside another plan (``yield from steps(board.plan(...))``); on
        a board not opened yet, the plan opens it first."""
        if not self._opened:
            return self._opened_first(method, args, kwargs)
        return getattr(self, "_plan_" + method)(*args, **kwargs)  # type: ignore[no-any-return]

    def _opened_first(self, method: str, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Steps[Any]:
        yield from self._plan_open()
        result = yield from steps(getattr(self, "_plan_" + method)(*args, **kwargs))
        return result

    def translate_error(self, exc: ResponseError) -> Exception:
        """The exception a board script's error reply stands for (a
        ``PointsOutOfRange`` or ``SeasonFrozen``, both ValueErrors), else exc."""
        text = str(exc)
        if text.startswith(_errors.BOARD_RANGE_PREFIX):
            return _errors.PointsOutOfRange(f"the new points do not fit the board: it holds magnitudes up to "
                              f"{self.codec.max_points} ({self.codec.limit_reason()})")
        if text.startswith(_errors.BOARD_FROZEN_PREFIX):
            return _errors.SeasonFrozen(f"leaderboard {self.name!r}: {text.split(' ', 1)[1]}")
        return exc

    def forget_cached(self) -> None:
        """Forget the cached top-N reads of this board (any season, any instance)."""
        self._caches.pop(self._key_name, None)

    def _entries(self, pairs: Sequence[Any], start: int, first: int, style: str,
                 infos: Optional[Sequence[Any]] = None, flat: bool = False) -> List[Entry]:
        """Entries of a slice of the board in rank order: ``pairs`` are (member,
        score) or, with ``flat``, member, score, member...; ``start`` is the
        0-based position of the first, ``first`` its rank. O(len(pairs))
        (a loop in C: ``board_entries``)."""
        return board_entries(Entry, pairs if type(pairs) is list else list(pairs), flat, self.codec.scale,
                             self.codec.points, style, start, first, infos, info_of, None)

    def _slice_call(self, key: str, start: int, stop: int) -> Call:
        """The step of :meth:`_slice` as a :class:`Call` (for pipelines and generator plans)."""
        method, args, _, _, _ = self._slice(key, start, stop, list)
        return Call(method, args)

    def _slice(self, key: str, start: int, stop: int, parse: Callable[[Any], _T]) -> Direct[_T]:
        """ZREVRANGE/ZRANGE key start stop WITHSCORES, read by ``parse`` (withscores
        passed by position, as redis-py's signatures place it: no keyword dict)."""
        if self.codec.desc:
            return ("zrevrange", (key, start, stop, True), None, parse, None)
        return ("zrange", (key, start, stop, False, True), None, parse, None)

    def _range_plan(self, keys: Tuple[str, ...], mode: str, where: Any, size: int, style: str,
                    with_info: bool) -> Direct[List[Entry]]:
        args = (*self.script_config, mode, where, size, style, "1" if with_info else "0")
        parse = self._range_parsers.get((style, with_info))
        if parse is None:
            codec = self.codec
            parse = self._range_parsers[(style, with_info)] = functools.partial(
                board_range_entries, Entry, codec.scale, codec.points, style, info_of if with_info else None)
        return (RANGE, self._bytes_keys.get(keys) or self._encoded(keys), args, parse, None)

    # -- writes -------------------------------------------------------------

    def season_at(self, at: When) -> Optional[str]:
        """The season a write dated ``at`` goes to: on a periodic board the
        period holding it (PeriodClosed when its retention dropped it), else
        None (the board's own season)."""
        if self.period is None:
            return None
        return self._period_of(self.codec.tick_of(at, time.time() if at is None else 0.0))[0]

    def _write_args(self, pairs: Sequence[Tuple[PlayerId, Points]], at: When, rule: Optional[str],
                    style: str, subscore: Optional[int] = None) -> Tuple[Tuple[str, ...], Tuple[Any, ...]]:
        """The keys and arguments of ``submit.lua`` for these results (checked first)."""
        chosen = self.rule if rule is None else self._rule(rule)
        sign = 1
        if chosen == "decr":
            chosen, sign = "incr", -1
        codec = self.codec
        text, check = codec.text, codec.check_points
        flat: List[Any] = []
        for player, points in pairs:
            flat += (player if type(player) is str and player else player_id(player), text(sign * check(points)))
        tick = codec.tick_of(at, time.time() if at is None else 0.0)
        keys, expire = self._write_target(tick)
        low = tick if codec.tick_limit and not codec.subscore_bits and subscore is None else codec.low_of(
            tick, 0 if subscore is None else codec.check_subscore(subscore))
        return keys, (*self.script_config, chosen, low, style, self.passed, expire, *flat)

    def _plan_submit(self, player: PlayerId, points: Points, *, at: When = None, rule: Optional[str] = None,
                     with_rank: bool = False, subscore: Optional[int] = None) -> Plan[Any]:
        """Apply a result by the board's rule (or ``rule=``); the new points, or a
        :class:`Change` with ``with_rank=True``. ``subscore`` (boards made with
        ``subscore_bits``) breaks ties on points before the time; it is stored
        with the time whenever the points change. One atomic script; O(log n)."""
        if rule is None and subscore is None and type(points) is int and self._plain_ticks:
            # the common call, its arguments made as _write_args makes them (an
            # int in range, a whole second in range, no period, no subscore)
            tick = at if type(at) is int else -1
            if at is None:
                now = time.time()
                tick = int(now) if now >= 0.0 else -1
            limit = self.codec.max_points
            if 0 <= tick < self._plain_ticks and -limit <= points <= limit:
                # an int player or points goes as it is: every client sends an int as its decimal text
                member = player if type(player) is str and player or type(player) is int else player_id(player)
                season_keys = self._keys.get(self.season)  # no period on this path
                return (SUBMIT, (self._bytes_keys.get(season_keys) if season_keys else None)
                        or self._encoded(self.keys()),
                        (*self._plain_head, tick, self._plain_styles[1 if with_rank else 0], *self._plain_tail,
                         member, points),
                        self._changed if with_rank else self._new_points, self.translate_error)
        keys, args = self._write_args(((player, points),), at, rule, self.rank_style if with_rank else "", subscore)
        return direct_run(SUBMIT, self._encoded(keys), args, self._changed if with_rank else self._new_points,
                          self.translate_error)

    def _new_points(self, reply: List[Any]) -> Points:
        self.forget_cached()
        return reply_points(reply[0], self.codec.scale)  # codec.parse_points, without its frame

    def _changed(self, reply: List[Any]) -> Change:
        self.forget_cached()
        return submit_change(Change, reply, self.codec.scale)

    def _plan_submit_many(self, results: Union[Mapping[PlayerId, Points], Sequence[Tuple[PlayerId, Points]]],
                          *, at: When = None, rule: Optional[str] = None) -> Steps[List[Points]]:
        """Apply many results earned at the same time in one atomic script; each
        result's new points. Nothing is written if any total would not fit.
        O(k log n) for k results."""
        pairs = list(results.items()) if isinstance(results, Mapping) else list(results)
        keys, args = self._write_args(pairs, at, rule, "")
        if not pairs:
            return []
        try:
            reply = yield Run(SUBMIT, self._encoded(keys), args)
        except ResponseError as exc:
            raise self.translate_error(exc) from exc
        self.forget_cached()
        parse = self.codec.parse_points
        return [parse(x) for x in reply]

    def _plan_set_points(self, player: PlayerId, points: Points, *, at: When = None) -> Plan[Points]:
        """Set a player's points (rule ``set``); the tie-break time moves only if they change. O(log n)."""
        return self._plan_submit(player, points, at=at, rule="set")

    def _plan_remove(self, player: PlayerId) -> Plan[bool]:
        """Take a player and their entry data off the board; True if they were on it. O(log n)."""
        member = player_id(player)
        return direct_run(REMOVE, self._encoded(self.keys()), (*self.script_config, member), self._removed, self.translate_error)

    def _removed(self, reply: Any) -> bool:
        self.forget_cached()
        return bool(reply)

    def _plan_set_info(self, player: PlayerId, mapping: Mapping[str, Any]) -> Steps[None]:
        """Store a player's entry data (display name, country...), replacing any
        before; SeasonFrozen on a season rolled over. One script, O(1). Entry
        data is the player's: a rollover carries it into the new season."""
        member = player_id(player)
        if not isinstance(mapping, Mapping):
            raise TypeError(f"info must be a mapping, not {type(mapping).__name__}")
        try:
            text = json.dumps(dict(mapping), sort_keys=True, allow_nan=False)
        except ValueError as exc:  # NaN or an infinity somewhere in it
            raise ValueError(f"entry data must be standard JSON: NaN and infinities have no JSON form "
                             f"({exc})") from None
        keys, expire = self._write_target(self.codec.tick_of(None, time.time()))
        try:
            yield Run(SET_INFO, self._encoded(keys), (*self.script_config, member, text, expire))
        except ResponseError as exc:
            raise self.translate_error(exc) from exc
        self.forget_cached()

    def _plan_rollover(self, new_season: Union[str, int], *, archive: Union[int, timedelta, None] = None) -> Steps[None]:
        """Freeze the current season (writes to it fail from now on), optionally
        expiring it after ``archive`` seconds, and write ``new_season`` from now on. O(1)."""
        if self.period is not None:
            raise ValueError("a periodic board rolls over by itself; rollover() is for named seasons")
        new = tag_part(new_season, "season")
        if self.season is not None and new == str(self.season):
            raise ValueError(f"leaderboard {self.name!r} is in season {new!r} already: roll over to a new name")
        if (yield Call("hexists", (self.keys(new)[3], "frozen"))):
            raise SeasonFrozen(f"leaderboard {self.name!r}: season {new!r} was played and frozen before; "
                               f"roll over to a new name")
        keys = self.keys()
        calls = [Call("hset", (keys[3], "frozen", "1"))]
        if archive is not None:
            seconds = int(archive.total_seconds()) if isinstance(archive, timedelta) else count_arg(archive, "archive")
            if seconds <= 0:
                raise ValueError(f"archive must be a positive number of seconds, not {archive!r}")
            calls += [Call("expire", (key, seconds)) for key in keys]
            labels = yield Call("hkeys", (keys[0] + ":snapshots",))  # the season's snapshots go with it
            snapshot_keys = [k for label in labels for k in self._snapshot_keys(as_text(label))[:2]]
            calls += [Call("expire", (key, seconds)) for key in (*snapshot_keys, keys[0] + ":snapshots")]
        if self._descriptor_key is not None:
            # the descriptor moves first, only from the season this process
            # holds: a process that rolled over meanwhile wins, this one re-reads
            moved = yield Run(REDESCRIBE, (self._descriptor_key,), ("season", self.season or "", new))
            if moved:
                stored = stored_of(moved)
                self._given.pop("season", None)
                self._configure(_options_of(stored))
                self.forget_cached()
                raise SeasonFrozen(f"leaderboard {self.name!r} was rolled over to season "
                                   f"{stored.get('season')!r} meanwhile (by another process); it uses that season now")
        if self._descriptor_key is not None and self.season is not None:
            calls.append(Call("hset", (self._descriptor_key, "past:" + self.season, "1")))
        yield calls
        yield from self._carry_info(keys[4], self.keys(new)[4])
        self.season = new
        if "season" in self._given:
            self._given["season"] = new
        self._keys.clear()
        self._top_plans.clear()
        self._top_by_n.clear()
        self.forget_cached()

    def _carry_info(self, old_key: str, new_key: str, batch: int = 1000) -> Steps[None]:
        """Copy the entry data of a season into the next one (HSCAN in batches;
        data already written to the new season wins)."""
        cursor: Any = 0
        while True:
            cursor, found = yield Call("hscan", (old_key, cursor), {"count": batch})
            if found:
                yield [Call("hsetnx", (new_key, field, value)) for field, value in found.items()]
            if int(cursor) == 0:
                return

    # -- reads --------------------------------------------------------------

    def _plan_score(self, player: PlayerId, *, season: Optional[Union[str, int]] = None) -> Plan[Optional[Points]]:
        """A player's points, or None if absent. O(1)."""
        member = player if type(player) is str and player else player_id(player)
        return ("zscore", (self.keys(season)[0], member), None, self._points_or_none, None)

    def _points_or_none(self, score: Optional[float]) -> Optional[Points]:
        return None if score is None else self.codec.points(score)

    def _plan_subscore(self, player: PlayerId, *,
                       season: Optional[Union[str, int]] = None) -> Plan[Optional[int]]:
        """A player's subscore (0 on a board without one), or None if absent. O(1)."""
        member = player if type(player) is str and player else player_id(player)
        return ("zscore", (self.keys(season)[0], member), None, self._subscore_or_none, None)

    def _subscore_or_none(self, score: Optional[float]) -> Optional[int]:
        return None if score is None else self.codec.subscore(score)

    def _plan_reached(self, player: PlayerId, *,
                      season: Optional[Union[str, int]] = None) -> Plan[Optional[datetime]]:
        """When a player reached their points (the start of that tick, UTC), or
        None if absent or on a board without a tie-break. O(1)."""
        member = player if type(player) is str and player else player_id(player)
        return ("zscore", (self.keys(season)[0], member), None, self._reached_or_none, None)

    def _reached_or_none(self, score: Optional[float]) -> Optional[datetime]:
        if score is None or not self.codec.integer:
            return None
        return datetime.fromtimestamp(self.codec.seconds(score), timezone.utc)

    def _plan_rank(self, player: PlayerId, *, ranking: Optional[str] = None,
                   season: Optional[Union[str, int]] = None) -> Plan[Optional[int]]:
        """A player's 1-based rank in the board's style (or ``ranking=``), None if absent. O(log n)."""
        member = player if type(player) is str and player else player_id(player)
        style = self.rank_style if ranking is None else self._style_of(ranking)
        keys = self._keys.get(self.season) if season is None and self.period is None else None
        if keys is None:
            keys = self.keys(season)
        if style == "o":
            return (self._rank_method, (keys[0], member), None, _one_based, None)
        return (STANDING, self._bytes_keys.get(keys) or self._encoded(keys), (*self.script_config, member, style),
                _rank_of_standing, None)

    def _plan_count(self, *, season: Optional[Union[str, int]] = None) -> Plan[int]:
        """How many players are on the board. O(1)."""
        return direct_call("zcard", (self.keys(season)[0],), int)

    def _plan_rank_for(self, points: Points, *, ranking: Optional[str] = None,
                       season: Optional[Union[str, int]] = None) -> Plan[int]:
        """The rank ``points`` would get if submitted now (nothing is written). O(log n)."""
        value = self.codec.check_points(points)
        style = self._style_of(ranking)
        keys = self.keys(season)
        codec = self.codec
        text = codec.text
        if style == "d":
            bounds = ("(" + text(value), "+inf") if codec.desc else ("-inf", "(" + text(value))
            return direct_call("zcount", (keys[1], *bounds), _one_more)
        # An ordinal rank for a submission now lands after its equals when
        # the earliest wins, before them when the latest does.
        with_equals = style == "o" and self.tiebreak == "earliest"
        if codec.integer:
            low, high = value * codec.scale, (value + 1) * codec.scale
            if codec.desc:
                bounds = (str(low if with_equals else high), "+inf")
            else:
                bounds = ("-inf", "(" + str(high if with_equals else low))
        else:
            edge = text(value) if with_equals else "(" + text(value)
            bounds = (edge, "+inf") if codec.desc else ("-inf", edge)
        return direct_call("zcount", (keys[0], *bounds), _one_more)

    def _plan_top(self, n: int = 10, *, with_info: bool = False, ranking: Optional[str] = None,
                  season: Optional[Union[str, int]] = None) -> Plan[List[Entry]]:
        """The best ``n`` entries. O(log n + n); cached for ``cache_ttl`` seconds when set."""
        if season is None and type(n) is int and self.period is None:  # the plan of the same call before
            if with_info is False and ranking is None:  # top(n): found by n alone, the season checked
                hit = self._top_by_n.get(n)
                if hit is not None and hit[0] == self.season:
                    return hit[1]
            plan = self._top_plans.get((self.season, n, with_info, ranking))
            if plan is not None:
                return plan
        n = count_arg(n, "n")
        style = self._style_of(ranking)
        keys = self.keys(season)
        if self.cache_ttl:
            return self._cached_top(keys, n, with_info, style)
        made = self._top(keys, n, with_info, style)
        if isinstance(made, tuple) and season is None and self.period is None:  # reusable: keep it
            if len(self._top_plans) >= 64:
                self._top_plans.clear()
                self._top_by_n.clear()
            self._top_plans[(self.season, n, with_info, ranking)] = made
            if with_info is False and ranking is None:
                self._top_by_n[n] = (self.season, made)
        return made

    def _top(self, keys: Tuple[str, ...], n: int, with_info: bool, style: str) -> Plan[List[Entry]]:
        if n == 0:
            return _no_entries()
        if with_info:
            return self._range_plan(keys, "at", 0, n, style, True)
        parse = self._top_parsers.get(style)
        if parse is None:  # the entries of a reply, remembered with it (one memo per style)
            parse = self._top_parsers[style] = functools.partial(
                board_top_entries, [], Entry, self.codec.scale, self.codec.points, style)
        return self._slice(keys[0], 0, n - 1, parse)

    def _cached_top(self, keys: Tuple[str, ...], n: int, with_info: bool, style: str) -> Steps[List[Entry]]:
        slot = (keys[0], n, with_info, style, self.script_config)
        hit = self._caches.get(self._key_name, {}).get(slot)
        if hit is not None and hit[0] > time.monotonic():
            return list(hit[1])
        entries = yield from steps(self._top(keys, n, with_info, style))
        assert self.cache_ttl is not None
        self._caches.setdefault(self._key_name, {})[slot] = (time.monotonic() + self.cache_ttl, list(entries))
        return entries

    def _plan_standings(self, season: Union[str, int], n: int = 10, *, with_info: bool = False,
                        ranking: Optional[str] = None) -> Plan[List[Entry]]:
        """The best ``n`` entries of a past (or any) season. O(log n + n)."""
        return self._plan_top(n, with_info=with_info, ranking=ranking, season=season)

    def _plan_page(self, number: int, size: int = 10, *, with_info: bool = False, ranking: Optional[str] = None,
                   season: Optional[Union[str, int]] = None) -> Plan[List[Entry]]:
        """Page ``number`` (1-based) of ``size`` entries. O(log n + size)."""
        start, size = page_slice(number, size)
        style = self._style_of(ranking)
        keys = self.keys(season)
        if size == 0 or start >= SIZE_LIMIT:
            return _no_entries()
        if style == "o" and not with_info:
            return self._slice(keys[0], start, start + size - 1,
                               lambda pairs: self._entries(pairs, start, start + 1, "o"))
        return self._range_plan(keys, "at", start, size, style, with_info)

    def _plan_around(self, player: PlayerId, radius: int = 5, *, with_info: bool = False,
                     ranking: Optional[str] = None, season: Optional[Union[str, int]] = None) -> Plan[List[Entry]]:
        """The entries within ``radius`` places of a player (clipped at the ends,
        the player included); empty if absent. O(log n + radius)."""
        # an int player goes as it is: every client sends an int as its decimal text
        member = player if type(player) is str and player or type(player) is int else player_id(player)
        if not (type(radius) is int and 0 <= radius <= SIZE_LIMIT):
            radius = count_arg(radius, "radius")
        style = self.rank_style if ranking is None else self._style_of(ranking)
        keys = self._keys.get(self.season) if season is None and self.period is None else None
        return self._range_plan(keys or self.keys(season), "around", member, radius, style, with_info)

    def _plan_friends(self, player: PlayerId, friend_ids: Sequence[PlayerId], *, with_info: bool = False,
                      ranking: Optional[str] = None, season: Optional[Union[str, int]] = None) -> Plan[List[Entry]]:
        """The player and their friends ranked among themselves (``rank``) with
        their global rank (``global_rank``); absent ones left out. One script
        around ZMSCORE; O(k log n) for k players."""
        if isinstance(friend_ids, (str, bytes)):
            raise TypeError("friend_ids must be a sequence of player ids, not one id")
        members = friend_members(player, friend_ids, player_id)
        style = self.rank_style if ranking is None else self._style_of(ranking)
        args = (*self.script_config, style, "1" if with_info else "0", *members)
        return direct_run(FRIENDS, self._encoded(self.keys(season)), args,
                          lambda reply: self._friend_entries(reply, members, style, with_info))

    def _friend_entries(self, reply: Any, members: List[Union[str, bytes, int]], style: str,
                        with_info: bool) -> List[Entry]:
        scores, ranks, infos = reply
        codec = self.codec
        return board_friend_entries(Entry, _as_list(scores), _as_list(ranks), _as_list(infos) if with_info else None,
                                    members, codec.desc, codec.scale, codec.points, style, info_of)

    def _standing(self, player: PlayerId, parse: Callable[[Optional[Tuple[int, int, int]]], _T],
                  season: Optional[Union[str, int]] = None) -> Direct[_T]:
        """The player's standing (better, worse, count; None if absent) read by ``parse``."""
        return direct_run(STANDING, self._encoded(self.keys(season)), (*self.script_config, player_id(player), "p"),
                      lambda reply: parse(_standing_of(reply)))

    def _plan_percentile(self, player: PlayerId, *,
                         season: Optional[Union[str, int]] = None) -> Plan[Optional[float]]:
        """The percentage of players with worse points (0..100), None if absent. O(log n)."""
        return self._standing(player, _percentile, season)

    def _plan_bucket(self, player: PlayerId, *, season: Optional[Union[str, int]] = None) -> Plan[Optional[str]]:
        """``"top 1%"``, ``"top 5%"``... by the board's ``buckets`` cut-offs (the
        first cut-off at or above the player's competition rank as a percentage),
        ``"bottom N%"`` below the last; None if absent. O(log n)."""
        return self._standing(player, self._bucket_of, season)

    def _bucket_of(self, standing: Optional[Tuple[int, int, int]]) -> Optional[str]:
        if standing is None:
            return None
        better, _, count = standing
        share = 100.0 * (better + 1) / count
        for cut in self.buckets:
            if share <= cut:
                return f"top {cut:g}%"
        return f"bottom {100 - self.buckets[-1]:g}%"

    def _plan_info(self, player: PlayerId) -> Plan[Optional[Dict[str, Any]]]:
        """A player's entry data, or None. O(1)."""
        return direct_call("hget", (self.keys()[4], player_id(player)), info_of)

    # -- snapshots (fastrank.leaderboard.snapshots) -----------------------------

    def _snapshot_keys(self, label: str) -> Tuple[str, str, str, str, str]:
        """The keys of the current season's snapshot ``label`` (board, dense
        companion, counts and state unused, the season's entry data)."""
        keys = self.keys()
        base = f"{keys[0]}:snap:{key_part(label)}"
        return (base, base + ":dense", base + ":counts", base + ":meta", keys[4])

    def _plan_snapshot(self, label: str) -> Steps[int]:
        """Copy the current season's board to a frozen snapshot ``label`` (the
        time taken recorded with it); the number of players copied.
        SnapshotExists if the label is taken. One script; O(n)."""
        text = tag_part(label, "label")
        keys, copy = self.keys(), self._snapshot_keys(text)
        copied = yield Run(SNAPSHOT, (keys[0], keys[1], copy[0], copy[1], keys[0] + ":snapshots"),
                           (text, repr(time.time())))
        if int(copied) < 0:
            raise _errors.SnapshotExists(f"leaderboard {self.name!r} has a snapshot {text!r} already: "
                                         f"drop_snapshot it first, or take another label")
        return int(copied)

    def _plan_snapshots(self) -> Steps[List[SnapshotInfo]]:
        """The current season's snapshots, oldest first. O(snapshots)."""
        stored = stored_of((yield Call("hgetall", (self.keys()[0] + ":snapshots",))))
        taken = [SnapshotInfo(label, datetime.fromtimestamp(float(t), timezone.utc)) for label, t in stored.items()]
        return sorted(taken, key=lambda s: (s.taken, s.label))

    def _plan_drop_snapshot(self, label: str) -> Steps[bool]:
        """Delete the snapshot ``label``; True if there was one. O(its size)."""
        text = tag_part(label, "label")
        copy = self._snapshot_keys(text)
        replies = yield [Call("hdel", (self.keys()[0] + ":snapshots", text)),
                         Call("delete", (copy[0],)), Call("delete", (copy[1],))]  # one key each: a cluster pipeline's rule
        return bool(replies[0])

    def _known_snapshot(self, label: str) -> Steps[Tuple[str, str, str, str, str]]:
        """The keys of the snapshot ``label``; UnknownSnapshot if the season has none so named."""
        text = tag_part(label, "label")
        if not (yield Call("hexists", (self.keys()[0] + ":snapshots", text))):
            raise _errors.UnknownSnapshot(f"leaderboard {self.name!r} has no snapshot {text!r} in season "
                                          f"{self.current_season()!r}: snapshots() lists them")
        return self._snapshot_keys(text)

    def _reading(self, keys: Tuple[str, str, str, str, str]) -> "BoardPlans":
        """These plans reading ``keys`` (a snapshot's) instead of the season's."""
        reader = _FixedKeys.__new__(_FixedKeys)
        reader.__dict__.update(self.__dict__)
        reader._fixed = keys
        reader._keys = {self.season: keys}
        reader._bytes_keys, reader._top_plans, reader._top_by_n = {}, {}, {}
        return reader

    def _plan_rank_change(self, player: PlayerId, *, since: str,
                          ranking: Optional[str] = None) -> Steps[RankChange]:
        """The player's rank now and at the snapshot ``since``, and the places
        climbed since (a :class:`RankChange`; None parts for a player absent
        now or then); UnknownSnapshot for an unknown label. O(log n)."""
        then_keys = yield from self._known_snapshot(since)
        now: Optional[int] = yield from steps(self._plan_rank(player, ranking=ranking))
        then: Optional[int] = yield from steps(self._reading(then_keys)._plan_rank(player, ranking=ranking))
        return RankChange(now, then, None if now is None or then is None else then - now)

    def slice_plan(self, start: int, size: int, season: Optional[Union[str, int]]) -> Plan[List[Tuple[Any, float]]]:
        """The plan of ``size`` (member, score) pairs in rank order from 0-based ``start``."""
        return self._slice(self.keys(season)[0], start, start + size - 1, list)

    def _iter_start(self, batch: int, ranking: Optional[str]) -> Ranker:
        """Check ``iter``'s arguments; the ranker that numbers its entries."""
        if count_arg(batch, "batch") < 1:
            raise ValueError("batch must be >= 1")
        return Ranker(self._style_of(ranking))

    def entries_from(self, ranker: Ranker, start: int, pairs: Sequence[Tuple[Any, float]]) -> Iterator[Entry]:
        """Entries of (member, score) pairs that start at 0-based ``start``, ranked by ``ranker``."""
        for i, (member, score) in enumerate(pairs):
            points = self.codec.points(score)
            yield Entry(ranker.rank_at(start + i, points), as_text(member), points)

    def _pages_iter(self, batch: int = 1000, *, ranking: Optional[str] = None,
                    season: Optional[Union[str, int]] = None) -> Pages[Entry]:
        """Every entry in rank order, fetched ``batch`` at a time (O(log n + batch)
        a batch; a board written meanwhile may shift entries between batches)."""
        ranker = self._iter_start(batch, ranking)
        start = 0
        while True:
            entries = yield self._entries_page(ranker, start, batch, season)
            if len(entries) < batch:
                return
            start += batch

    def _entries_page(self, ranker: Ranker, start: int, batch: int,
                      season: Optional[Union[str, int]]) -> Steps[List[Entry]]:
        """The plan of ``batch`` entries from 0-based ``start``, ranked by ``ranker``."""
        pairs = yield from steps(self.slice_plan(start, batch, season))
        return list(self.entries_from(ranker, start, pairs))

    # the methods of both faces (fastrank.Leaderboard, fastrank.asyncio.Leaderboard: runner.twin)
    submit_many = twin(_plan_submit_many, opens=True)
    set_points = twin(_plan_set_points, opens=True)
    remove = twin(_plan_remove, opens=True)
    set_info = twin(_plan_set_info, opens=True)
    rollover = twin(_plan_rollover, opens=True)
    score = twin(_plan_score, opens=True)
    subscore = twin(_plan_subscore, opens=True)
    reached = twin(_plan_reached, opens=True)
    rank = twin(_plan_rank, opens=True)
    count = twin(_plan_count, opens=True)
    rank_for = twin(_plan_rank_for, opens=True)
    top = twin(_plan_top, opens=True)
    standings = twin(_plan_standings, opens=True)
    page = twin(_plan_page, opens=True)
    around = twin(_plan_around, opens=True)
    friends = twin(_plan_friends, opens=True)
    percentile = twin(_plan_percentile, opens=True)
    bucket = twin(_plan_bucket, opens=True)
    info = twin(_plan_info, opens=True)
    snapshot = twin(_plan_snapshot, opens=True)
    snapshots = twin(_plan_snapshots, opens=True)
    drop_snapshot = twin(_plan_drop_snapshot, opens=True)
    rank_change = twin(_plan_rank_change, opens=True)
    iter = twin_pages(_pages_iter, opens=True)


class _FixedKeys(BoardPlans):
    """Board plans whose every read uses one set of keys (a snapshot's: ``_reading``)."""

    _fixed: Tuple[str, str, str, str, str]

    def keys(self, season: Optional[Union[str, int]] = None) -> Tuple[str, str, str, str, str]:
        return self._fixed


class _Submits(Protocol):
    """What the submit faces need of a board: its client, its submit and open plans."""

    _client: Any
    _opened: bool

    def _plan_open(self) -> Steps[None]: ...

    def _plan_submit(self, player: PlayerId, points: Points, *, at: When = None, rule: Optional[str] = None,
                     with_rank: bool = False, subscore: Optional[int] = None) -> Plan[Any]: ...


class SyncSubmit(SyncFace):
    """``submit`` of a sync board face (Leaderboard, ShardedLeaderboard),
    its return type following ``with_rank``."""

    def _made(self: _Submits) -> None:
        run(self._client, self._plan_open())

    def open(self: _SelfSubmits) -> _SelfSubmits:
        """Read the board's stored options again (a sync board reads them when
        it is made; a board made meanwhile by another process is found so)."""
        run(self._client, self._plan_open())
        return self

    @overload
    def submit(self: _Submits, player: PlayerId, points: Points, *, at: When = None, rule: Optional[str] = None,
               with_rank: Literal[False] = False, subscore: Optional[int] = None) -> Points: ...

    @overload
    def submit(self: _Submits, player: PlayerId, points: Points, *, at: When = None, rule: Optional[str] = None,
               with_rank: Literal[True], subscore: Optional[int] = None) -> Change: ...

    def submit(self: _Submits, player: PlayerId, points: Points, *, at: When = None, rule: Optional[str] = None,
               with_rank: bool = False, subscore: Optional[int] = None) -> Union[Points, Change]:
        """Apply a result by the board's rule (or ``rule=``): the new points,
        or with ``with_rank=True`` a :class:`Change` (points, rank, the rank
        before, the players passed). One atomic script on the player's board."""
        return run(self._client, self._plan_submit(player, points, at=at, rule=rule,  # type: ignore[no-any-return]
                                                   with_rank=with_rank, subscore=subscore))


class AsyncSubmit(AsyncFace):
    """``submit`` of an asyncio board face, its return type following ``with_rank``."""

    async def open(self: _SelfSubmits) -> _SelfSubmits:
        """Read the board's stored options (its descriptor), writing them if the
        board is new; BoardConfigMismatch if an option given differs. Every
        method does this once, before its first call; ``await board.open()``
        checks the options up front."""
        await run_async(self._client, self._plan_open())
        return self

    async def _opening(self: _Submits) -> None:
        if not self._opened:
            await run_async(self._client, self._plan_open())

    @overload
    async def submit(self: _Submits, player: PlayerId, points: Points, *, at: When = None, rule: Optional[str] = None,
                     with_rank: Literal[False] = False, subscore: Optional[int] = None) -> Points: ...

    @overload
    async def submit(self: _Submits, player: PlayerId, points: Points, *, at: When = None, rule: Optional[str] = None,
                     with_rank: Literal[True], subscore: Optional[int] = None) -> Change: ...

    async def submit(self: _Submits, player: PlayerId, points: Points, *, at: When = None, rule: Optional[str] = None,
                     with_rank: bool = False, subscore: Optional[int] = None) -> Union[Points, Change]:
        """:meth:`fastrank.Leaderboard.submit` as a coroutine."""
        if not self._opened:
            await run_async(self._client, self._plan_open())
        return await run_async(self._client, self._plan_submit(
            player, points, at=at, rule=rule, with_rank=with_rank, subscore=subscore))


class Leaderboard(SyncSubmit, BoardPlans):
    """A leaderboard over a redis-py style client (``fastrank.Engine``,
    ``redis.Redis``, ``redis.cluster.RedisCluster``).

    ``Leaderboard(client, name, *, season=None, order="desc", tiebreak="earliest",
    ranking="ordinal", rule="incr", point_bits=20, time_bits=33, period=None,
    tz=None, retain=None, epoch=0, tick="1s", subscore_bits=0, score_form="bits", buckets=(1, 5, 10, 25, 50), cache_ttl=None, passed=3)``
    """

    def at_snapshot(self, label: str) -> SnapshotView:
        """The reads (``top``, ``rank``, ``around``, ``score``, ``count``) of
        the snapshot ``label``; each raises UnknownSnapshot for a label the
        season does not hold."""
        return SnapshotView(self, label)
