import { GIVE_LUA, TAKE_LUA } from "./cap-counters.ts";

/**
 * Counts every scope of the admissions of one send in one round trip; per call: each scope's rate
 * (and its burst reserve, read or spent); when every rate allows the call, its slot among the
 * account's calls in flight; and when it got its slot too, a guess at its estimate taken from its
 * credit caps (all windows or none: cap-counters.ts's `takeCaps`), which the cap phase then finds
 * taken. The counters are the very keys and arithmetic rate-limiter-flexible's Redis limiter uses
 * (a count with its window's expiry, read with PTTL), so processes of an earlier version count
 * together with this one; the slots are concurrency.ts's sorted sets. KEYS are the keys of the
 * send's shapes (redis-admission.ts's AdmissionShape), each shape's once; ARGV[1] is the calls as
 * JSON: runs of calls of one shape, each `[place of the shape's first key in KEYS (from 0), the
 * shape's spec, [member, amount, member, amount…]]`, the spec naming the shape's keys by their
 * place from its first: `[scopes, slot, caps]`, the scopes `[[rate key, reserve key, requests a
 * second, burst, burst window s]…]`, the slot `[] | [key, max]`, the caps `[] | [key, cap…]`.
 * ARGV[2..4]: now, a slot's expiry and its lease (ms, as text, which Redis takes as written). One
 * argument for the calls, not some twenty-five a call: each argument costs ioredis and Redis more
 * than its bytes, and a run of one token's calls names its keys and rules once. The calls are
 * counted in turn, as if each were a script of its own. All keys go to one Redis (no cluster).
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
    local rateKey, reserveKey, points, reserve, seconds = r[1], r[2], r[3], r[4], r[5]
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
local now, expires, leaseMs = ARGV[2], ARGV[3], ARGV[4]
-- One call of a run: its shape's scopes, slot and caps resolved to keys (once per run).
local function admit(run, member, amount, out)
  local allowed = rates(run.scopes, out)
  local got = -1
  if run.slotKey and allowed then
    got = slot(run.slotKey, now, expires, run.max, member, leaseMs)
    if got == 0 then allowed = false end
  end
  table.insert(out, got)
  local taken = 0
  if #run.capKeys > 0 and amount > 0 and allowed then
    taken = takeCaps(run.capKeys, run.capLimits, amount, get, add)[1]
  end
  table.insert(out, taken)
end
local out = {}
for _, group in ipairs(cjson.decode(ARGV[1])) do
  local base, spec, items = group[1], group[2], group[3]
  local run = {scopes = {}, capKeys = {}, capLimits = {}}
  for i, r in ipairs(spec[1]) do
    run.scopes[i] = {KEYS[base + r[1] + 1], KEYS[base + r[2] + 1], r[3], r[4], r[5]}
  end
  if #spec[2] > 0 then run.slotKey, run.max = KEYS[base + spec[2][1] + 1], spec[2][2] end
  for j = 1, #spec[3], 2 do
    table.insert(run.capKeys, KEYS[base + spec[3][j] + 1])
    table.insert(run.capLimits, spec[3][j + 1])
  end
  for i = 1, #items, 2 do admit(run, items[i], items[i + 1], out) end
end
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
