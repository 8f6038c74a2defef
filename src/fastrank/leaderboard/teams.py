"""fastrank.TeamLeaderboard: players on a board, and their teams ranked by their points.

A team board is a player board (:class:`fastrank.Leaderboard`'s plans, every
read of it unchanged) plus a board whose entries are teams, ranked with the
same order, tie-break and ranking style. A team's points are, by
``aggregate=``:

- ``"sum"``: the sum of its members' points;
- ``"best"``: its best member's points;
- ``"top"`` with ``k=N``: the sum of its N best members' points.

A player is in at most one team (``join``; joining another moves them,
``leave``); a player without a team counts on the player board only, and a
member who holds no points yet is in the team but counts for nothing. A team
is on the team board while at least one of its members holds points; its
tie-break time is when it reached its current points.

Keys, all under the board's hash tag ``{lb:<name>[:<season>]}`` (so every write
is one atomic script, ``scripts/teams.lua``, and on a Redis Cluster the whole
board, teams and players, lives on one node):

- the player board's keys (``board.py``);
- ``...:teams`` (with ``:teams:dense`` and ``:teams:counts`` on a dense board):
  team → the team's encoded score;
- ``...:team_of``: player → team;
- ``...:members:<team>``: the team's members who hold points, player → the
  player's score on the board (ranked within the team: :meth:`members`).

Costs, for a board of n players, a team of m members and the aggregate's k:
a submit is O(log n + log m) for a sum and O(log n + log m + k) for the best
k; ``join``, ``leave`` and ``remove`` the same; team reads as a board's
(O(log t) a rank among t teams); ``members`` O(log m + size). A team's points
must fit the board's ``point_bits`` as a player's do (a write that would take
one past them is refused, ``PointsOutOfRange``, and changes nothing).

Seasons: ``season=`` and ``rollover()`` as on a board; a rollover freezes the
teams with the players and carries the memberships into the new season (its
team board starts empty, as its player board). ``period=`` is refused: the
memberships would have no season to be carried from.
"""
from __future__ import annotations

import time
from datetime import datetime, timedelta
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from redis.exceptions import ResponseError

from fastrank import errors as _errors
from fastrank.errors import BoardConfigMismatch
from fastrank.leaderboard.board import DEFAULT_BUCKETS, BoardPlans, Entry, PlayerId, SyncSubmit, When
from fastrank.leaderboard.descriptor import UNSET, Unset, check_given
from fastrank.leaderboard.parts import SIZE_LIMIT, as_text, count_arg, key_part, player_id, tag_part
from fastrank.leaderboard.scorebits import Points
from fastrank.runner import Call, Plan, Run, Steps, direct_call, direct_run, packaged_script, twin

TEAMS = packaged_script("teams")
AGGREGATES = ("sum", "best", "top")
TeamId = Union[str, bytes, int]
_TEAM_RANGE = "FASTRANK_RANGE a team's"


def team_id(team: Any) -> Union[str, bytes]:
    """A team id as sent to the server (the rules of a player id)."""
    try:
        return player_id(team)
    except (TypeError, ValueError) as exc:
        raise type(exc)(str(exc).replace("player", "team")) from None


class _TeamSide(BoardPlans):
    """The team board: a board (its reads: rank, top, score...) whose entries
    are teams, on keys beside the player board's under its hash tag. Its
    options are the player board's (:class:`TeamPlans` keeps them in step)."""

    def keys(self, season: Optional[Union[str, int]] = None) -> Tuple[str, str, str, str, str]:
        """The team board's keys for ``season``: teams, dense, counts, the
        player board's meta (one frozen flag for both), team entry data."""
        chosen = self.season if season is None else tag_part(season, "season")
        keys = self._keys.get(chosen)
        if keys is None:
            tag = f"{{lb:{self._key_name}}}" if chosen is None else f"{{lb:{self._key_name}:{key_part(chosen)}}}"
            teams = tag + ":teams"
            keys = self._keys[chosen] = (teams, teams + ":dense", teams + ":counts", tag + ":meta", teams + ":info")
        return keys


class TeamPlans(BoardPlans):
    """A team board's configuration and methods as plans (no I/O here):
    the player board's plans, its writes kept in step with the teams', and
    the team reads. :class:`TeamLeaderboard` and ``fastrank.asyncio.TeamLeaderboard``
    expose each ``_plan_<name>`` as the method ``<name>``."""

    def __init__(
        self,
        client: Any,
        name: str,
        *,
        aggregate: Union[str, Unset] = UNSET,
        k: Union[int, None, Unset] = UNSET,
        season: Union[str, int, None, Unset] = UNSET,
        order: Union[str, Unset] = UNSET,
        tiebreak: Union[str, None, Unset] = UNSET,
        ranking: Union[str, Unset] = UNSET,
        rule: Union[str, Unset] = UNSET,
        point_bits: Union[int, Unset] = UNSET,
        time_bits: Union[int, Unset] = UNSET,
        epoch: Union[int, float, datetime, Unset] = UNSET,
        tick: Union[str, Unset] = UNSET,
        period: None = None,
        buckets: Sequence[float] = DEFAULT_BUCKETS,
        cache_ttl: Optional[float] = None,
        passed: int = 3,
    ) -> None:
        if period is not None:
            raise ValueError("a team board does not take period=: its memberships are carried from one season "
                             "to the next by rollover(); use season= and rollover()")
        if aggregate is not UNSET and aggregate not in AGGREGATES:
            raise ValueError(f"aggregate must be one of {AGGREGATES}, not {aggregate!r}")
        if k is not UNSET and aggregate is UNSET:
            raise ValueError("k goes with aggregate='top': give both")
        if aggregate == "top":
            if k is UNSET or k is None or count_arg(k, "k") < 1:
                raise ValueError(f"aggregate='top' needs k >= 1 (how many best members count), not {k!r}")
        elif k not in (UNSET, None):
            raise ValueError(f"k goes with aggregate='top', not with aggregate={aggregate!r}")
        #: the aggregate options this process gave (checked against the descriptor)
        self._given_aggregate: Dict[str, Any] = {}
        if aggregate is not UNSET:
            self._given_aggregate = {"aggregate": aggregate, "k": k if aggregate == "top" else None}
        self.aggregate: str = self._given_aggregate.get("aggregate", "sum")
        #: how many best members a team's points add up (None: all of them)
        self.k: Optional[int] = self._given_aggregate.get("k")
        options: Dict[str, Any] = {"season": season, "order": order, "tiebreak": tiebreak, "ranking": ranking,
                                   "rule": rule, "point_bits": point_bits, "time_bits": time_bits, "epoch": epoch,
                                   "tick": tick}
        given = {option: value for option, value in options.items() if value is not UNSET}
        self._teams = _TeamSide(client, name, buckets=buckets, cache_ttl=cache_ttl, passed=passed, **given)
        self._teams._descriptor_key = None  # the player board's descriptor describes both
        self._teams._opened = True
        super().__init__(client, name, buckets=buckets, cache_ttl=cache_ttl, passed=passed, **given)

    # -- the descriptor: the board's, kind "teams", with the aggregate -----------

    def descriptor(self) -> Dict[str, str]:
        """The stored options as the descriptor holds them (text)."""
        return {**super().descriptor(), "kind": "teams", **self._aggregate_texts(self._aggregate_options())}

    def _aggregate_options(self) -> Dict[str, Any]:
        return {"aggregate": self.aggregate, "k": self.k}

    @staticmethod
    def _aggregate_texts(options: Mapping[str, Any]) -> Dict[str, str]:
        return {option: "" if value is None else str(value) for option, value in options.items()}

    def _take(self, stored: Dict[str, str], kind: str = "teams") -> None:
        super()._take(stored, "teams")
        aggregate, k_text = stored.get("aggregate", ""), stored.get("k", "")
        k = int(k_text) if k_text else None
        check_given("team leaderboard", self.name, stored, self._aggregate_texts(self._given_aggregate),
                    self._given_aggregate, {"aggregate": aggregate, "k": k})
        if aggregate not in AGGREGATES:
            raise BoardConfigMismatch("team leaderboard", self.name, "aggregate", aggregate, self.aggregate)
        self.aggregate, self.k = aggregate, k

    def _configure(self, options: Dict[str, Any]) -> None:
        super()._configure(options)
        self._teams._configure(options)

    def __repr__(self) -> str:
        k = "" if self.k is None else f", k={self.k}"
        return f"{super().__repr__()[:-1]}, aggregate={self.aggregate!r}{k})"

    @property
    def _team_k(self) -> int:
        """The aggregate as the script takes it: how many best members count, 0 for all."""
        return {"sum": 0, "best": 1}.get(self.aggregate, self.k or 0)

    # -- keys ---------------------------------------------------------------

    def _script_keys(self, season: Optional[str] = None) -> Tuple[bytes, ...]:
        """KEYS of ``scripts/teams.lua``: the player board's, the team board's, the players' teams."""
        players = self.keys(season)
        teams = self._teams.keys(season)
        return self._encoded((*players, teams[0], teams[1], teams[2], players[0] + ":team_of"))

    def _members_key(self, team: Union[str, bytes], season: Optional[Union[str, int]] = None) -> str:
        return self.keys(season)[0] + ":members:" + as_text(team)

    def translate_error(self, exc: ResponseError) -> Exception:
        """The exception a team script's error reply stands for (see :meth:`BoardPlans.translate_error`)."""
        if str(exc).startswith(_TEAM_RANGE):
            return _errors.PointsOutOfRange(f"a team's new points do not fit the board: it holds magnitudes up to "
                                            f"{self.codec.max_points} ({self.codec.limit_reason()})")
        return super().translate_error(exc)

    def forget_cached(self) -> None:
        """Forget the cached top-N reads of the player board and of the team board."""
        super().forget_cached()
        self._teams.forget_cached()

    # -- writes: the player board's, each kept in step with the teams ----------

    def _submit_args(self, pairs: Sequence[Tuple[PlayerId, Points]], at: When, rule: Optional[str], style: str,
                     subscore: Optional[int]) -> Tuple[Tuple[bytes, ...], Tuple[Any, ...]]:
        """KEYS and ARGV of a submit (``_write_args``'s, laid out as ``teams.lua`` takes them)."""
        _, args = self._write_args(pairs, at, rule, style, subscore)
        config, chosen, low, style, passed, flat = args[:5], args[5], args[6], args[7], args[8], args[10:]
        return self._script_keys(), (*config, self._team_k, low, "submit", chosen, style, passed, *flat)

    def _plan_submit(self, player: PlayerId, points: Points, *, at: When = None, rule: Optional[str] = None,
                     with_rank: bool = False, subscore: Optional[int] = None) -> Plan[Any]:
        """Apply a result by the board's rule (or ``rule=``) and move the
        player's team with it; the new points, or a :class:`Change` with
        ``with_rank=True``. One atomic script; O(log n + log m (+ k))."""
        keys, args = self._submit_args(((player, points),), at, rule, self.rank_style if with_rank else "", subscore)
        return direct_run(TEAMS, keys, args, self._changed if with_rank else self._new_points, self.translate_error)

    def _plan_submit_many(self, results: Union[Mapping[PlayerId, Points], Sequence[Tuple[PlayerId, Points]]],
                          *, at: When = None, rule: Optional[str] = None) -> Steps[List[Points]]:
        """Apply many results earned at the same time, and move their teams, in
        one atomic script; each result's new points. Nothing is written if any
        total, a player's or a team's, would not fit."""
        pairs = list(results.items()) if isinstance(results, Mapping) else list(results)
        keys, args = self._submit_args(pairs, at, rule, "", None)
        if not pairs:
            return []
        try:
            reply = yield Run(TEAMS, keys, args)
        except ResponseError as exc:
            raise self.translate_error(exc) from exc
        self.forget_cached()
        parse = self.codec.parse_points
        return [parse(x) for x in reply]

    def _move(self, what: str, player: PlayerId, at: When, team: Union[str, bytes] = "") -> Plan[bool]:
        """A join, leave or remove of ``player`` at ``at`` (None: now): one atomic script."""
        member = player_id(player)
        low = self.codec.low_of(self.codec.tick_of(at, time.time() if at is None else 0.0), 0)
        args = (*self.script_config, self._team_k, low, what, team, member)
        return direct_run(TEAMS, self._script_keys(), args, self._removed, self.translate_error)

    def _plan_remove(self, player: PlayerId, *, at: When = None) -> Plan[bool]:
        """Take a player off the board, out of their team and their entry data
        off; True if they were on the board. ``at`` (default now) is the time
        their team reaches its new points. O(log n + log m (+ k))."""
        return self._move("remove", player, at)

    def _plan_join(self, player: PlayerId, team: TeamId, *, at: When = None) -> Plan[bool]:
        """Put ``player`` in ``team`` (out of the team they were in): their
        points count for it from now on; ``at`` (default now) is the time the
        teams reach their new points. True. O(log n + log m (+ k))."""
        return self._move("join", player, at, team_id(team))

    def _plan_leave(self, player: PlayerId, *, at: When = None) -> Plan[bool]:
        """Take ``player`` out of their team (their points stay on the player
        board); ``at`` as for :meth:`join`. True if they were in one.
        O(log n + log m (+ k))."""
        return self._move("leave", player, at)

    def _plan_rollover(self, new_season: Union[str, int], *,
                       archive: Union[int, timedelta, None] = None) -> Steps[None]:
        """Freeze the current season, players and teams (optionally expiring it
        after ``archive`` seconds), and write ``new_season`` from now on, with
        every membership carried into it. O(memberships), plus O(teams) with
        ``archive``."""
        old_keys = self._script_keys()
        old_season = self.season
        yield from super()._plan_rollover(new_season, archive=archive)
        if archive is not None:
            seconds = int(archive.total_seconds()) if isinstance(archive, timedelta) else archive
            teams = yield Call("zrange", (old_keys[5], 0, -1))
            calls = [Call("expire", (key, seconds)) for key in old_keys[5:]]
            calls += [Call("expire", (self._members_key(team, old_season), seconds)) for team in teams]
            yield calls
        yield from self._carry_info(old_keys[8].decode(), self._script_keys()[8].decode())
        self._teams._configure(self._options())

    # -- team reads -----------------------------------------------------------

    def _plan_team_of(self, player: PlayerId, *, season: Optional[Union[str, int]] = None) -> Plan[Optional[str]]:
        """The team a player is in, or None. O(1)."""
        key = self.keys(season)[0] + ":team_of"
        return direct_call("hget", (key, player_id(player)), _text_or_none)

    def _plan_team_score(self, team: TeamId, *,
                         season: Optional[Union[str, int]] = None) -> Plan[Optional[Points]]:
        """A team's points, or None when none of its members holds points. O(1)."""
        return self._teams._plan_score(team_id(team), season=season)

    def _plan_team_rank(self, team: TeamId, *, ranking: Optional[str] = None,
                        season: Optional[Union[str, int]] = None) -> Plan[Optional[int]]:
        """A team's 1-based rank among the teams in the board's style (or
        ``ranking=``), None if not on the team board. O(log t)."""
        return self._teams._plan_rank(team_id(team), ranking=ranking, season=season)

    def _plan_team_top(self, n: int = 10, *, ranking: Optional[str] = None,
                       season: Optional[Union[str, int]] = None) -> Plan[List[Entry]]:
        """The best ``n`` teams (``Entry.player`` is the team). O(log t + n)."""
        return self._teams._plan_top(n, ranking=ranking, season=season)

    def _plan_team_count(self, *, season: Optional[Union[str, int]] = None) -> Plan[int]:
        """How many teams are on the team board. O(1)."""
        return self._teams._plan_count(season=season)

    def _plan_members(self, team: TeamId, n: Optional[int] = None, *, ranking: Optional[str] = None,
                      season: Optional[Union[str, int]] = None) -> Plan[List[Entry]]:
        """The team's members who hold points, ranked within the team in the
        board's style (or ``ranking=``); the best ``n``, or all. O(log m + n)."""
        size = SIZE_LIMIT if n is None else count_arg(n, "n")
        style = self._style_of(ranking)
        key = self._members_key(team_id(team), season)
        if size == 0:
            return _no_members()
        return self._slice(key, 0, size - 1, lambda pairs: self._entries(pairs, 0, 1, style))

    submit_many = twin(_plan_submit_many, opens=True)
    remove = twin(_plan_remove, opens=True)
    rollover = twin(_plan_rollover, opens=True)
    join = twin(_plan_join, opens=True)
    leave = twin(_plan_leave, opens=True)
    team_of = twin(_plan_team_of, opens=True)
    team_score = twin(_plan_team_score, opens=True)
    team_rank = twin(_plan_team_rank, opens=True)
    team_top = twin(_plan_team_top, opens=True)
    team_count = twin(_plan_team_count, opens=True)
    members = twin(_plan_members, opens=True)


def _no_members() -> Steps[List[Entry]]:
    """The plan of ``members(team, 0)``: nothing to send."""
    return []
    yield  # a generator that sends nothing  # noqa: unreachable


def _text_or_none(value: Optional[Union[str, bytes]]) -> Optional[str]:
    return None if value is None else as_text(value)



class TeamLeaderboard(SyncSubmit, TeamPlans):
    """A player board and its teams over a sync redis-py style client.

    ``TeamLeaderboard(client, name, *, aggregate="sum", k=None, season=None,
    order="desc", tiebreak="earliest", ranking="ordinal", rule="incr",
    point_bits=20, time_bits=33, epoch=0, tick="1s", buckets=(1, 5, 10, 25, 50),
    cache_ttl=None, passed=3)``: ``aggregate`` is ``"sum"``, ``"best"`` or
    ``"top"`` (with ``k``). The player side reads as a :class:`fastrank.Leaderboard`.
    """

