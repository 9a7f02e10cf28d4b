-- wrk script for many instances at once: each wrk thread sends its requests to one instance (PORTS, a
-- comma-separated list), so one latency histogram covers them all. Prints one CSV line, latencies in ms.
local addresses = {}
local next_thread = 1

setup = function(thread)
    if #addresses == 0 then
        for port in string.gmatch(os.getenv("PORTS"), "%d+") do
            table.insert(addresses, wrk.lookup("127.0.0.1", port)[1])
        end
    end
    thread.addr = addresses[next_thread]
    next_thread = next_thread % #addresses + 1
end

done = function(summary, latency, requests)
    local errors = summary.errors.connect + summary.errors.read + summary.errors.write
        + summary.errors.status + summary.errors.timeout
    io.write(string.format("CSV,%d,%.1f,%.3f,%.3f,%.3f,%d\n",
        summary.requests, summary.requests / (summary.duration / 1000000),
        latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000, errors))
end
