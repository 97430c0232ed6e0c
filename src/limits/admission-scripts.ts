import { GIVE_LUA, TAKE_LUA } from "./cap-counters.ts";

/**
 * Counts every scope of the admissions of one turn of the event loop in one round trip; per call:
 * each scope's rate (and its burst reserve, read or spent); when every rate allows the call, its
 * slot among the account's calls in flight; and when it got its slot too, a guess at its estimate
 * taken from its credit caps (all windows or none: cap-counters.ts's `takeCaps`), which the cap
 * phase then finds taken. The counters are the very keys and arithmetic rate-limiter-flexible's
 * Redis limiter uses (a count with its window's expiry, read with PTTL), so processes of an earlier
 * version count together with this one; the slots are concurrency.ts's sorted sets. KEYS are the
 * turn's keys, each once; ARGV[1] is the calls as JSON (redis-admission.ts writes it), each naming
 * its keys by their place in KEYS: its scopes (`[rate key, reserve key, requests a second, burst,
 * burst window s]`), its slot (`[] or [key, now, expiry, max, member, lease ms]`) and its caps
 * (`[] or [amount, key, cap, key, cap…]`). One argument, not some twenty-five a call: each
 * argument costs ioredis and Redis more than its bytes. The calls are counted in turn, as if each
 * were a script of its own. All keys go to one Redis (no cluster).
 *
 * The calls of one script mostly share their keys (one token, one account): each key is read once
 * per script, and the calls after the first count on what was read, their additions written at
 * the end with one INCRBY per counter and one ZADD per slot set. A script runs alone and keys do
 * not expire while it runs, so every call's verdict and every counter's value are what scripts of
 * one call each would have made, for a few commands where each call took fourteen.
 */
export const ADMIT = `${TAKE_LUA}
local seen, counters = {}, {}
local function known(key, v)
  local s = {v = v, add = 0}
  seen[key] = s
  table.insert(counters, key)
  return s
end
-- A counter's value (nil when absent), read once per script.
local function get(key)
  local s = seen[key]
  if not s then
    local v = redis.call('get', key)
    s = known(key, v and tonumber(v))
  end
  return s.v
end
-- Adds to a counter known to exist: written at the end.
local function add(key, amount)
  local s = seen[key]
  s.v = s.v + amount
  s.add = s.add + amount
end
-- A counter's time to live (ms), read once; one without an expiry gets the window's.
local function ttlOf(key, seconds)
  local s = seen[key]
  if not s.ttl then s.ttl = redis.call('pttl', key) end
  if s.ttl == -1 then
    redis.call('expire', key, seconds)
    s.ttl = 1000 * seconds
  end
  return s.ttl
end
-- Counts one on a rate counter: what it has counted, and its time to live.
local function take(key, seconds)
  local s = seen[key]
  if s and s.v then
    add(key, 1)
    return s.v, ttlOf(key, seconds)
  end
  s = s or known(key, nil)
  s.v = redis.call('incrby', key, 1)
  -- A counter INCRBY just started gets the window's expiry, as SET NX EX gave it (one call less).
  if s.v == 1 then s.ttl = -1 end
  return s.v, ttlOf(key, seconds)
end
local function rates(scopes, out)
  local allowed = true
  for _, r in ipairs(scopes) do
    local rateKey, reserveKey, points, reserve, seconds = KEYS[r[1]], KEYS[r[2]], r[3], r[4], r[5]
    local consumed, ttl = take(rateKey, 1)
    local used, left, taken = -1, -1, 0
    if consumed <= points then
      if reserve > 0 then
        local v = get(reserveKey)
        if v then
          used = v
          left = ttlOf(reserveKey, seconds)
        end
      end
    elseif reserve > 0 then
      used, left = take(reserveKey, seconds)
      taken = 1
      if used > reserve then allowed = false end
    else
      allowed = false
    end
    for _, v in ipairs({consumed, ttl, used, left, taken}) do table.insert(out, v) end
  end
  return allowed
end
-- The slot sets: trimmed of expired slots and counted once per script, added to at the end.
local sets, setKeys = {}, {}
local function slot(key, now, expires, max, member, leaseMs)
  local s = sets[key]
  if not s then
    redis.call('zremrangebyscore', key, '-inf', now)
    s = {n = redis.call('zcard', key), add = {}}
    sets[key] = s
    table.insert(setKeys, key)
  end
  if s.n >= max then return 0 end
  table.insert(s.add, expires)
  table.insert(s.add, member)
  s.n = s.n + 1
  s.leaseMs = leaseMs
  return s.n
end
local function admit(call, out)
  local allowed = rates(call[1], out)
  local asked, got = call[2], -1
  if #asked > 0 and allowed then
    got = slot(KEYS[asked[1]], asked[2], asked[3], asked[4], asked[5], asked[6])
    if got == 0 then allowed = false end
  end
  table.insert(out, got)
  local caps, taken = call[3], 0
  if #caps > 0 and allowed then
    local keys, limits = {}, {}
    for j = 2, #caps, 2 do
      table.insert(keys, KEYS[caps[j]])
      table.insert(limits, caps[j + 1])
    end
    taken = takeCaps(keys, limits, caps[1], get, add)[1]
  end
  table.insert(out, taken)
end
local out = {}
for _, call in ipairs(cjson.decode(ARGV[1])) do admit(call, out) end
for _, key in ipairs(counters) do
  local s = seen[key]
  if s.add ~= 0 then redis.call('incrby', key, s.add) end
end
for _, key in ipairs(setKeys) do
  local s = sets[key]
  if #s.add > 0 then
    redis.call('zadd', key, unpack(s.add))
    redis.call('pexpire', key, s.leaseMs)
  end
end
return out`;

/** Gives a call's slot back and what it owes its caps, in one round trip. */
export const RELEASE = `${GIVE_LUA}
local k = 1
if ARGV[1] == '1' then
  redis.call('zrem', KEYS[1], ARGV[2])
  k = 2
end
giveCaps(k, #KEYS - k + 1, ARGV[3])
return 0`;
