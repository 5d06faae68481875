-- wrk script of benchmarks/web_load.py: POST /api/v1/check with real answers, one per line of
-- the file LEXGATE_WRK_BODIES (JSON bodies), the API key from LEXGATE_WRK_KEY.
local bodies = {}
for line in io.lines(os.getenv("LEXGATE_WRK_BODIES")) do
  bodies[#bodies + 1] = line
end
local headers = { ["Content-Type"] = "application/json", ["X-API-Key"] = os.getenv("LEXGATE_WRK_KEY") }
local next_body = 0

function setup(thread)
  thread:set("offset", math.random(#bodies))
end

function request()
  next_body = next_body + 1
  local body = bodies[((next_body + (offset or 0)) % #bodies) + 1]
  return wrk.format("POST", "/api/v1/check", headers, body)
end

function done(summary, latency, requests)
  io.write(string.format(
    "WRK_RESULT {\"requests\": %d, \"duration_us\": %d, \"connect\": %d, \"read\": %d, \"write\": %d, " ..
    "\"status\": %d, \"timeout\": %d, \"p50_us\": %d, \"p90_us\": %d, \"p99_us\": %d, \"max_us\": %d, \"mean_us\": %.1f}\n",
    summary.requests, summary.duration, summary.errors.connect, summary.errors.read,
    summary.errors.write, summary.errors.status, summary.errors.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end
