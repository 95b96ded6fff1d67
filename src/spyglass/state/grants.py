"""Conversation grants ("Allow for this conversation") kept where every process finds them.

The interface and the in-process store are :mod:`spyglass.core.grants`; here are the
embedded one (the ``conversation_grants`` table in ``state.db``, shared by the processes of
one machine) and the shared one (Redis, each grant a key with a TTL, and one set per person so
signing out drops them all). Both compare a grant's end with the clock every store shares, so
a moved test clock expires them as real time would.
"""

from __future__ import annotations

import hashlib
import sqlite3
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spyglass.state.redis import RedisState
    from spyglass.state.sqlite.statefile import StateDB


class SQLiteGrants:
    """:class:`~spyglass.core.grants.GrantStore` in the state file."""

    def __init__(self, db: StateDB) -> None:
        self.db = db

    async def grant(
        self, conversation_id: str, account: str, capability: str, idle_seconds: float
    ) -> None:
        now = self.db.clock()

        def work(db: sqlite3.Connection) -> None:
            db.execute("DELETE FROM conversation_grants WHERE expires_at <= ?", (now,))
            db.execute(
                "INSERT INTO conversation_grants(conversation_id, account, capability, "
                "expires_at) VALUES (?,?,?,?) ON CONFLICT(conversation_id, account, capability) "
                "DO UPDATE SET expires_at = excluded.expires_at",
                (conversation_id, account, capability, now + idle_seconds),
            )

        await self.db.run(self.db.transaction(work))

    async def use(
        self, conversation_id: str, account: str, capability: str, idle_seconds: float
    ) -> bool:
        now = self.db.clock()

        def work(db: sqlite3.Connection) -> bool:
            renewed = db.execute(
                "UPDATE conversation_grants SET expires_at = ? WHERE conversation_id = ? AND "
                "account = ? AND capability = ? AND expires_at > ?",
                (now + idle_seconds, conversation_id, account, capability, now),
            )
            return renewed.rowcount > 0

        return await self.db.run(self.db.transaction(work))

    async def drop_person(self, account: str) -> int:
        def work(db: sqlite3.Connection) -> int:
            gone = db.execute("DELETE FROM conversation_grants WHERE account = ?", (account,))
            return gone.rowcount

        return await self.db.run(self.db.transaction(work))


def _digest(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()


# The person's set lives as long as their longest grant (PEXPIRE's GT needs Redis 7: compared
# here instead). KEYS[1] grant, KEYS[2] the person's set; ARGV: until, ttl ms.
_GRANT = """
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('SADD', KEYS[2], KEYS[1])
if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[2], ARGV[2]) end
return 1
"""

# KEYS[1] grant, KEYS[2] the person's set; ARGV: now, until, ttl ms.
_USE = """
local ends = redis.call('GET', KEYS[1])
if not ends then return 0 end
if tonumber(ends) <= tonumber(ARGV[1]) then
  redis.call('DEL', KEYS[1])
  return 0
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[3]) then redis.call('PEXPIRE', KEYS[2], ARGV[3]) end
return 1
"""

# KEYS[1] the person's set.
_DROP = """
local grants = redis.call('SMEMBERS', KEYS[1])
local gone = 0
for _, key in ipairs(grants) do gone = gone + redis.call('DEL', key) end
redis.call('DEL', KEYS[1])
return gone
"""


class RedisGrants:
    """:class:`~spyglass.core.grants.GrantStore` in Redis: keys show digests, never a
    conversation id or a person."""

    def __init__(self, state: RedisState) -> None:
        self.state = state

    @staticmethod
    def _keys(conversation_id: str, account: str, capability: str) -> list[str]:
        from spyglass.state.redis import PREFIX

        return [
            PREFIX + "grant:" + _digest(conversation_id, account, capability),
            PREFIX + "grants-of:" + _digest(account),
        ]

    async def grant(
        self, conversation_id: str, account: str, capability: str, idle_seconds: float
    ) -> None:
        until = self.state.clock() + idle_seconds
        keys = self._keys(conversation_id, account, capability)
        await self.state.script(_GRANT, keys, [f"{until:.6f}", _ms(idle_seconds)])

    async def use(
        self, conversation_id: str, account: str, capability: str, idle_seconds: float
    ) -> bool:
        now = self.state.clock()
        keys = self._keys(conversation_id, account, capability)
        args = [f"{now:.6f}", f"{now + idle_seconds:.6f}", _ms(idle_seconds)]
        return bool(await self.state.script(_USE, keys, args))

    async def drop_person(self, account: str) -> int:
        from spyglass.state.redis import PREFIX

        gone = await self.state.script(_DROP, [PREFIX + "grants-of:" + _digest(account)], [])
        return int(gone)


def _ms(seconds: float) -> int:
    return max(1, int(seconds * 1000))
