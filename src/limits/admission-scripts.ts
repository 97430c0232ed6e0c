import { GIVE_LUA, TAKE_LUA } from "./cap-counters.ts";

/**
 * Counts every scope of the admissions of one turn of the event loop in one round trip; per call:
 * each scope's rate (and its burst reserve, read or spent); when every rate allows the call, its
 * slot among the account's calls in flight; and when it got its slot too, a guess at its estimate
 * taken from its credit caps (all windows or none: cap-counters.ts's `takeCaps`), which the cap
 * phase then finds taken. The counters are the very keys and arithmetic rate-limiter-flexible's
 * Redis limiter uses (a count with its window's expiry, read with PTTL), so processes of an earlier
 * version count together with this one; the slots are concurrency.ts's sorted sets. Each call's
 * ARGV starts with its number of scopes, whether it asks for a slot and its number of cap
 * counters, which say how many KEYS and ARGV are its own; the calls are counted in turn, as if
 * each were a script of its own. All keys go to one Redis (no cluster).
 */
export const ADMIT = `${TAKE_LUA}
local function take(key, seconds)
  local consumed = redis.call('incrby', key, 1)
  -- A counter INCRBY just started gets the window's expiry, as SET NX EX gave it (one call less).
  local ttl = consumed == 1 and -1 or redis.call('pttl', key)
  if ttl == -1 then
    redis.call('expire', key, seconds)
    ttl = 1000 * seconds
  end
  return consumed, ttl
end
local function rates(k, a, n, out)
  local allowed = true
  for i = 1, n do
    local b = a + 3 + (i - 1) * 3
    local points, reserve, seconds = tonumber(ARGV[b]), tonumber(ARGV[b + 1]), tonumber(ARGV[b + 2])
    local rateKey, reserveKey = KEYS[k + 2 * i - 2], KEYS[k + 2 * i - 1]
    local consumed, ttl = take(rateKey, 1)
    local used, left, taken = -1, -1, 0
    if consumed <= points then
      if reserve > 0 then
        local v = redis.call('get', reserveKey)
        if v then
          used = tonumber(v)
          left = redis.call('pttl', reserveKey)
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
local function admit(k, a, out)
  local n, asked, m = tonumber(ARGV[a]), ARGV[a + 1] == '1', tonumber(ARGV[a + 2])
  local allowed = rates(k, a, n, out)
  local slot = -1
  k, a = k + 2 * n, a + 3 + 3 * n
  if asked then
    if allowed then
      redis.call('zremrangebyscore', KEYS[k], '-inf', ARGV[a])
      local inFlight = redis.call('zcard', KEYS[k])
      if inFlight >= tonumber(ARGV[a + 2]) then
        slot = 0
        allowed = false
      else
        redis.call('zadd', KEYS[k], ARGV[a + 1], ARGV[a + 3])
        redis.call('pexpire', KEYS[k], ARGV[a + 4])
        slot = inFlight + 1
      end
    end
    k, a = k + 1, a + 5
  end
  table.insert(out, slot)
  local caps = 0
  if m > 0 then
    if allowed then caps = takeCaps(k, m, a)[1] end
    k, a = k + m, a + 1 + m
  end
  table.insert(out, caps)
  return k, a
end
local out, k, a = {}, 1, 1
while a <= #ARGV do k, a = admit(k, a, out) end
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
