"""The shared backend's fast half: tokens, paused turns, sessions and login codes in Redis.

- a confirmation token is taken by a script that removes it: of any number of processes
  approving one token at once, exactly one receives the record; a sorted set by expiry lets
  a sweep in any process claim each unanswered card's expiry once, even after the record
  itself has gone (the member carries it);
- a paused turn is a hash claimed by a Lua script under a lease, so exactly one process
  resumes it, and another may carry it on if that process dies;
- sessions and login codes expire on their own (``EX``).

Keys hold SHA-256 digests of tokens, never the tokens. Any connection failure becomes
:class:`~spyglass.errors.StoreUnavailable` (the caller fails closed); the client reconnects by
itself on the next call once Redis is back.
"""

from __future__ import annotations

import asyncio
import secrets
import uuid
import weakref
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeout

from spyglass.conversation.pending import (
    RECALL_SECONDS,
    PausedTurn,
    TurnBusy,
    TurnState,
)
from spyglass.conversation.stored import state_from_json, state_to_json
from spyglass.core.confirmation import (
    TOKEN_TTL_SECONDS,
    ConfirmationStore,
    PendingRecord,
    Taken,
    record_from_json,
    record_to_json,
    token_digest,
)
from spyglass.errors import StoreUnavailable
from spyglass.state.sessions import LOGIN_CODE_TTL_SECONDS, SESSION_TTL_SECONDS, Session

T = TypeVar("T")

PREFIX = "spyglass:"

#: Connections to Redis per process (per event loop); calls beyond wait for one.
MAX_CONNECTIONS = 64
#: How long a call waits for a free connection before Redis counts as unavailable.
POOL_WAIT_SECONDS = 30.0

# KEYS[1] turn; ARGV: conversation, now, lease, owner, ttl_ms, recall seconds.
# Answers {0} unknown/foreign/expired past recall, {1, state, expires_at} claimed,
# {2, seconds} busy.
_TAKE = """
local f = redis.call('HMGET', KEYS[1], 'conversation', 'state', 'expires_at', 'lease_until')
if not f[1] or f[1] ~= ARGV[1] then return {0} end
local now = tonumber(ARGV[2])
local lease_until = tonumber(f[4])
if lease_until == 0 and tonumber(f[3]) + tonumber(ARGV[6]) < now then
  redis.call('DEL', KEYS[1])
  return {0}
end
if lease_until > now then return {2, tostring(lease_until - now)} end
redis.call('HSET', KEYS[1], 'lease_until', string.format('%.6f', now + tonumber(ARGV[3])),
  'owner', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return {1, f[2], f[3]}
"""

# KEYS: turn, then the token's record, audited marker, due set; ARGV as _TAKE, then the due
# set's member prefix. The claim of _TAKE and, only when it claims the turn, the take of
# _TAKE_CONFIRMATION, in one script: {1, state, expires_at, record or false, audited}.
# The record taken is kept with the turn ('approval'), so that a process carrying the turn on
# after this one died finds the approval this one took: the turn says whether its call
# started (and is then never run again) or not (and then runs under that approval).
_CLAIM_WITH_ANSWER = _TAKE.replace(
    "return {1, f[2], f[3]}\n",
    """local v = redis.call('GET', KEYS[2])
if not v then
  local kept = redis.call('HMGET', KEYS[1], 'approval', 'audited')
  if not kept[1] then return {1, f[2], f[3], false, 0} end
  return {1, f[2], f[3], kept[1], tonumber(kept[2] or '0')}
end
redis.call('DEL', KEYS[2])
redis.call('ZREM', KEYS[4], ARGV[7] .. v)
local audited = redis.call('DEL', KEYS[3])
redis.call('HSET', KEYS[1], 'approval', v, 'audited', tostring(audited))
return {1, f[2], f[3], v, audited}
""",
)
assert _CLAIM_WITH_ANSWER != _TAKE

# KEYS[1] turn; ARGV: owner, state, lease_until, ttl_ms.
_CHECKPOINT = """
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'state', ARGV[2], 'lease_until', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
"""

# KEYS: record, audited marker, due set; ARGV: the due set's member prefix (digest + " ").
# Answers nil (unknown or taken) or {record, 1 if a sweep audited its expiry else 0}.
_TAKE_CONFIRMATION = """
local v = redis.call('GET', KEYS[1])
if not v then return nil end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[3], ARGV[1] .. v)
return {v, redis.call('DEL', KEYS[2])}
"""

# KEYS[1] due set; ARGV: now, limit, record key prefix, marker key prefix.
# Claims (removes) due members; marks a record still kept so its late answer knows.
_CLAIM_EXPIRED = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1], 'LIMIT', 0, ARGV[2])
local out = {}
for _, member in ipairs(due) do
  redis.call('ZREM', KEYS[1], member)
  local digest = string.sub(member, 1, 64)
  local ttl = redis.call('PTTL', ARGV[3] .. digest)
  if ttl > 0 then redis.call('SET', ARGV[4] .. digest, '1', 'PX', ttl) end
  table.insert(out, string.sub(member, 66))
end
return out
"""

# KEYS: record, due set; ARGV: record, ttl_ms, due set member, expires_at. One command where
# a MULTI pipeline of SET and ZADD was four (MULTI, SET, ZADD, EXEC) and more client work.
_PUT_CONFIRMATION = """
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[3])
"""

# KEYS[1] turn; ARGV: owner.
_FINISH = """
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])
"""


class RedisState:
    """The connection to Redis: one client per event loop (the CLI runs a loop per call)."""

    def __init__(self, url: str, *, timeout: float, clock: Callable[[], float]) -> None:
        self.url = url
        self.timeout = timeout
        self.clock = clock
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, aioredis.Redis] = (
            weakref.WeakKeyDictionary()
        )

    def client(self) -> aioredis.Redis:
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            # A call that finds every connection busy waits for one (as for PostgreSQL's
            # pool), instead of redis-py's default pool failing it at once past 100 calls
            # in flight: a busy process is not an outage. Reaching the server is bounded
            # by the connect timeout.
            pool = aioredis.BlockingConnectionPool.from_url(
                self.url,
                max_connections=MAX_CONNECTIONS,
                timeout=max(POOL_WAIT_SECONDS, self.timeout),
                socket_timeout=self.timeout,
                socket_connect_timeout=self.timeout,
                # One quick retry covers a connection Redis closed while idle; a server that
                # is down is reported at once rather than after a long back-off.
                retry=Retry(NoBackoff(), 1),
                health_check_interval=30,
            )
            client = aioredis.Redis(connection_pool=pool)
            self._clients[loop] = client
        return client

    async def call(self, work: Callable[[aioredis.Redis], Awaitable[T]]) -> T:
        """``work(client)``, with every connection failure as :class:`StoreUnavailable`."""
        try:
            return await work(self.client())
        except (RedisError, OSError, RedisTimeout) as exc:
            raise StoreUnavailable(
                "redis", f"Redis cannot be reached ({type(exc).__name__}: {exc})"
            ) from exc

    async def script(self, source: str, keys: list[str], args: list[Any]) -> Any:
        """Run the Lua ``source`` as redis-py's registered script: by its SHA-1 (``EVALSHA``:
        the script is not sent again on every call), loaded only when Redis does not have it
        yet (a restart)."""
        return await self.call(lambda r: r.register_script(source)(keys=keys, args=args))

    async def health(self) -> dict[str, Any]:
        await self.call(lambda r: r.ping())
        return {"status": "ok"}

    async def aclose(self) -> None:
        loop = asyncio.get_running_loop()
        client = self._clients.pop(loop, None)
        if client is not None:
            await client.aclose()
            await client.connection_pool.disconnect()  # a pool passed in is not the client's


def _ms(seconds: float) -> int:
    return max(1, int(seconds * 1000))


class RedisConfirmationStore:
    DUE = PREFIX + "confirm-due"

    def __init__(self, state: RedisState) -> None:
        self.state = state

    def _kept(self, record: PendingRecord) -> tuple[str, str, int, str]:
        """How ``record`` is kept: its key, its value, its life in ms and its member of the
        due set (until answered or claimed; the member holds the record for the audit)."""
        digest = token_digest(record.token)
        # Kept a grace period past expiry so a late approval hears "expired", not "unknown".
        ttl = record.expires_at - self.state.clock() + TOKEN_TTL_SECONDS
        value = record_to_json(record)
        return PREFIX + "confirm:" + digest, value, _ms(ttl), f"{digest} {value}"

    def queue_put(self, pipe: Any, record: PendingRecord) -> None:
        """Add the commands that keep ``record`` to ``pipe`` (a MULTI pipeline)."""
        key, value, ttl_ms, member = self._kept(record)
        pipe.set(key, value, px=ttl_ms)
        pipe.zadd(self.DUE, {member: record.expires_at})

    async def put(self, record: PendingRecord) -> None:
        key, value, ttl_ms, member = self._kept(record)
        await self.state.script(
            _PUT_CONFIRMATION, [key, self.DUE], [value, ttl_ms, member, repr(record.expires_at)]
        )

    @classmethod
    def keys(cls, token: str) -> list[str]:
        """The token's record, its audited marker and the due set (``_TAKE_CONFIRMATION``)."""
        digest = token_digest(token)
        return [PREFIX + "confirm:" + digest, PREFIX + "confirm-audited:" + digest, cls.DUE]

    async def take(self, token: str) -> PendingRecord | None:
        digest = token_digest(token)
        keys = self.keys(token)
        answer = await self.state.script(_TAKE_CONFIRMATION, keys, [digest + " "])
        if answer is None:
            return None
        return record_from_json(token, answer[0], expiry_audited=bool(int(answer[1])))

    async def claim_expired(self, now: float, limit: int) -> list[PendingRecord]:
        args: list[str | int] = [
            f"{now:.6f}",
            limit,
            PREFIX + "confirm:",
            PREFIX + "confirm-audited:",
        ]
        found = await self.state.script(_CLAIM_EXPIRED, [self.DUE], args)
        return [record_from_json("", value) for value in found]


class RedisPendingTurnStore:
    def __init__(self, state: RedisState, lease_seconds: float) -> None:
        self.state = state
        self.lease = lease_seconds
        #: Names this process's claims, so a checkpoint never overwrites another's.
        self.owner = uuid.uuid4().hex

    @staticmethod
    def _key(token: str) -> str:
        return PREFIX + "turn:" + token_digest(token)

    def _ttl_ms(self, until: float) -> int:
        return _ms(until - self.state.clock() + TOKEN_TTL_SECONDS)

    def shares(self, confirmations: ConfirmationStore) -> bool:
        """Whether ``confirmations`` keeps its tokens on this same Redis connection."""
        return isinstance(confirmations, RedisConfirmationStore) and (
            confirmations.state is self.state
        )

    def checks_holders(self, accounts: object) -> bool:
        return False  # whose conversation it is lives in PostgreSQL

    async def put(self, paused: PausedTurn, record: PendingRecord | None = None) -> None:
        key = self._key(paused.token)
        mapping: dict[Any, Any] = {
            "conversation": paused.state.conversation_id,
            "state": state_to_json(paused.state, paused.token),
            "expires_at": f"{paused.expires_at:.6f}",
            "lease_until": "0",
            "owner": "",
        }
        ttl = self._ttl_ms(paused.expires_at)

        async def work(r: aioredis.Redis) -> None:
            # One MULTI: the turn and its token are kept together or not at all.
            async with r.pipeline(transaction=True) as pipe:
                if record is not None:
                    RedisConfirmationStore(self.state).queue_put(pipe, record)
                pipe.delete(key)
                pipe.hset(key, mapping=mapping)
                pipe.pexpire(key, ttl)
                await pipe.execute()

        await self.state.call(work)

    async def take(
        self,
        token: str,
        conversation_id: str,
        *,
        with_token: bool = False,
        holder: str | None = None,
    ) -> PausedTurn | None:
        assert holder is None, "check the holder only where checks_holders() says so"
        key = self._key(token)
        now = self.state.clock()
        args: list[str | int] = [
            conversation_id,
            f"{now:.6f}",
            f"{self.lease:.6f}",
            self.owner,
            self._ttl_ms(now + self.lease),
            f"{RECALL_SECONDS:.6f}",
        ]
        if with_token:
            keys = [key, *RedisConfirmationStore.keys(token)]
            args.append(token_digest(token) + " ")
            answer = await self.state.script(_CLAIM_WITH_ANSWER, keys, args)
        else:
            answer = await self.state.script(_TAKE, [key], args)
        if int(answer[0]) == 0:
            return None
        if int(answer[0]) == 2:
            raise TurnBusy(float(answer[1]))
        taken = None
        if with_token:
            # Lua's false comes back as None.
            record = answer[3]
            taken = Taken(
                None
                if record is None
                else record_from_json(token, record, expiry_audited=bool(int(answer[4])))
            )
        return PausedTurn(token, state_from_json(answer[1], token), float(answer[2]), taken)

    async def checkpoint(self, token: str, state: TurnState) -> None:
        key = self._key(token)
        until = self.state.clock() + self.lease
        args: list[str | int] = [
            self.owner,
            state_to_json(state, token),
            f"{until:.6f}",
            self._ttl_ms(until),
        ]
        await self.state.script(_CHECKPOINT, [key], args)

    async def finish(self, token: str) -> None:
        key = self._key(token)
        await self.state.script(_FINISH, [key], [self.owner])


class RedisSessions:
    def __init__(self, state: RedisState) -> None:
        self.state = state

    async def create(self) -> str:
        session_id = secrets.token_urlsafe(32)
        key = PREFIX + "session:" + token_digest(session_id)
        expires_at = self.state.clock() + SESSION_TTL_SECONDS
        value = f"{expires_at:.6f} {secrets.token_urlsafe(32)}"
        await self.state.call(lambda r: r.set(key, value, ex=SESSION_TTL_SECONDS))
        return session_id

    async def get(self, session_id: str) -> Session | None:
        key = PREFIX + "session:" + token_digest(session_id)
        raw = await self.state.call(lambda r: r.get(key))
        if raw is None:
            return None
        text = raw.decode() if isinstance(raw, bytes) else str(raw)
        expires_at, _, csrf = text.partition(" ")
        session = Session(csrf, float(expires_at))
        return session if session.expires_at > self.state.clock() else None

    async def end(self, session_id: str) -> bool:
        key = PREFIX + "session:" + token_digest(session_id)
        removed = await self.state.call(lambda r: r.delete(key))
        return bool(removed)


class RedisLoginCodes:
    def __init__(self, state: RedisState) -> None:
        self.state = state

    async def issue(self) -> str:
        code = secrets.token_urlsafe(24)
        key = PREFIX + "login:" + token_digest(code)
        expires_at = self.state.clock() + LOGIN_CODE_TTL_SECONDS
        await self.state.call(lambda r: r.set(key, f"{expires_at:.6f}", ex=LOGIN_CODE_TTL_SECONDS))
        return code

    async def redeem(self, code: str) -> bool:
        key = PREFIX + "login:" + token_digest(code)
        raw = await self.state.call(lambda r: r.getdel(key))
        return raw is not None and float(raw) > self.state.clock()
