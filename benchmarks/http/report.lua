-- wrk reporter: one CSV line per run, the seed experiment's columns plus errors; latencies in milliseconds.
-- CONFIG, POOL_SIZE and MAX_THREADS come from the environment of run-grid.sh.
done = function(summary, latency, requests)
    local errors = summary.errors.connect + summary.errors.read + summary.errors.write
        + summary.errors.status + summary.errors.timeout
    io.write(string.format("CSV,%s,%s,%s,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%d,%.1f\n",
        os.getenv("CONFIG"), os.getenv("POOL_SIZE"), os.getenv("MAX_THREADS"),
        summary.requests,
        latency.mean / 1000, latency.stdev / 1000,
        latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000,
        errors, summary.requests / (summary.duration / 1000000)))
end
