-- Requests for one endpoint of the questions API, chosen by the ENDPOINT environment variable; ids are drawn
-- from 1..ROWS. Reports like report.lua.
local endpoint = os.getenv("ENDPOINT")
local rows = tonumber(os.getenv("ROWS") or "100000")
local owner = os.getenv("OWNER") or "87"
-- ten owners with as many questions as OWNER (run-grid.sh picks them): ten small indexed selects per request.
-- Low owner ids are the generator's most active users (thousands of questions each), which would turn this
-- into one large select and wrk's 2 s timeout.
local owners = os.getenv("OWNERS") or owner

request = function()
    if endpoint == "owner" then
        return wrk.format("GET", "/questions?user=" .. owner)
    elseif endpoint == "by-owners" then
        return wrk.format("GET", "/questions/by-owners?users=" .. owners)
    elseif endpoint == "large" then
        return wrk.format("GET", "/questions/first?limit=1000")
    elseif endpoint == "write" then
        local id = math.random(1, rows)
        return wrk.format("PUT", "/questions/" .. id, {["Content-Type"] = "application/json"},
            '{"creationDate":"2020-01-01T00:00:00Z","score":' .. math.random(0, 100)
            .. ',"ownerUserId":' .. math.random(1, 1000) .. ',"answerCount":' .. math.random(1, 20) .. '}')
    elseif endpoint == "transaction" then
        local from = math.random(1, rows)
        local to = math.random(1, rows)
        return wrk.format("POST", "/questions/" .. from .. "/move-answers?to=" .. to .. "&count=1")
    end
    error("unknown ENDPOINT " .. tostring(endpoint))
end

done = function(summary, latency, requests)
    io.write(string.format("CSV,%s,%s,%s,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%d,%.1f\n",
        os.getenv("CONFIG"), endpoint, os.getenv("MAX_THREADS"),
        summary.requests,
        latency.mean / 1000, latency.stdev / 1000,
        latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000,
        summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status
            + summary.errors.timeout,
        summary.requests / (summary.duration / 1000000)))
end
