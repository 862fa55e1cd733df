-- wrk script: sends one request shape and checks every response body, not just its status.
--
-- Arguments (after `--` on the wrk command line):
--   1  method            GET or POST
--   2  expect            a substring every good 200 body holds; "-" for no body check at all
--                        (wrk then reads no body: a body copied into Lua and searched costs
--                        wrk CPU on the server's cores, a third of the `/v2` page's rate on two
--                        cores, docs/NOTES.md "Sixty-seventh session"); a good answer is then
--                        any 2xx or 3xx (wrk's own count of the others)
--   3  min_count         how many times `expect` must occur (1 when absent)
--   4  forbid            a substring no good body may hold ("-" for none)
--   5  alt_status        another status that is a correct answer (e.g. 429), or "-"
--   6  alt_expect        a substring that status's body must hold (and, for 429, a Retry-After)
-- Environment: TEU_KEY (API key, sent as `Authorization: Token ...`), TEU_BODY (request body).
--
-- At the end prints one line: RESULT requests=... rps=... p50_ms=... p99_ms=... ok=... alt=...
-- bad=... errors=..., where `bad` counts responses of any other status or a body that failed its
-- check and `errors` adds wrk's socket errors (connect, read, write, timeout) to `bad`.

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  method = args[1] or "GET"
  expect = args[2] or ""
  min_count = tonumber(args[3] or "1") or 1
  forbid = args[4]
  if forbid == "-" then forbid = nil end
  alt_status = tonumber(args[5] or "")
  alt_expect = args[6] or ""
  ok, alt, bad, shown = 0, 0, 0, 0
  plain = expect == "-"
  if plain then
    -- wrk asks for bodies only when `response` is a function once `init` has run.
    response = nil
  end
  wrk.method = method
  wrk.headers["Authorization"] = "Token " .. (os.getenv("TEU_KEY") or "")
  local body = os.getenv("TEU_BODY")
  if body and body ~= "" then
    wrk.body = body
    wrk.headers["Content-Type"] = "application/json"
  end
end

local function occurrences(text, needle)
  local n, from = 0, 1
  while true do
    local i = string.find(text, needle, from, true)
    if not i then return n end
    n = n + 1
    from = i + #needle
  end
end

function response(status, headers, body)
  local good = false
  if status == 200 then
    good = occurrences(body, expect) >= min_count
      and not (forbid and string.find(body, forbid, 1, true))
  elseif alt_status and status == alt_status then
    local retry = headers["retry-after"] or headers["Retry-After"]
    good = string.find(body, alt_expect, 1, true) ~= nil
      and (status ~= 429 or retry ~= nil)
    if good then alt = alt + 1; return end
  end
  if good then
    ok = ok + 1
  else
    bad = bad + 1
    if shown < 2 then
      shown = shown + 1
      io.stderr:write(string.format("unexpected response %d: %s\n", status, string.sub(body, 1, 300)))
    end
  end
end

function done(summary, latency, requests)
  local t_ok, t_alt, t_bad = 0, 0, 0
  for _, t in ipairs(threads) do
    t_ok = t_ok + t:get("ok")
    t_alt = t_alt + t:get("alt")
    t_bad = t_bad + t:get("bad")
  end
  local e = summary.errors
  local socket = e.connect + e.read + e.write + e.timeout
  -- `done` runs in wrk's own Lua state, where no `init` ran: the mode is read from a thread.
  if threads[1] and threads[1]:get("plain") then
    t_bad = e.status
    t_ok = summary.requests - e.status
  end
  io.write(string.format(
    "RESULT requests=%d rps=%.1f p50_ms=%.2f p99_ms=%.2f ok=%d alt=%d bad=%d errors=%d\n",
    summary.requests, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    t_ok, t_alt, t_bad, t_bad + socket))
end
