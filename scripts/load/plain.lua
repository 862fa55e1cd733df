-- wrk script: sends one request shape and reads no body: wrk counts the answers and those whose
-- status is not 2xx or 3xx ("Non-2xx or 3xx responses"), nothing more. For the rate without
-- check.lua's body check, which on the same cores as the server costs a share of them
-- (docs/NOTES.md, "Sixty-seventh session"); the caller checks bodies another way.
--
-- Arguments (after `--` on the wrk command line):
--   1  method            GET or POST
-- Environment: TEU_KEY (API key, sent as `Authorization: Token ...`), TEU_BODY (request body).

function init(args)
  wrk.method = args[1] or "GET"
  wrk.headers["Authorization"] = "Token " .. (os.getenv("TEU_KEY") or "")
  local body = os.getenv("TEU_BODY")
  if body and body ~= "" then
    wrk.body = body
    wrk.headers["Content-Type"] = "application/json"
  end
end
