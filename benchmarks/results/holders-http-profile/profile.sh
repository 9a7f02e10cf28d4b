#!/usr/bin/env bash
# A JFR profile of the HTTP grid's application, with and without the holders extension: what share of the
# application's CPU samples the extension's own code takes. Run from the repository root after building the
# benchmark and example jars (./mvnw -B -q -pl benchmarks,dropwizard-hikari-example -am package -DskipTests).
# Writes its figures to benchmarks/results/holders-http-profile/ (the recordings stay under target/).
set -euo pipefail
here=benchmarks/results/holders-http-profile
rec=benchmarks/target/holders-http-profile
mkdir -p "$rec"
wrapper="$rec/java-with-jfr.sh"
cat > "$wrapper" <<WRAP
#!/usr/bin/env bash
exec java -XX:StartFlightRecording=filename=$PWD/$rec/\$(date +%H%M%S).jfr,settings=profile "\$@"
WRAP
chmod +x "$wrapper"
for config in hikari-holders hikari; do
    OUT="$rec/$config" APP_JAVA="$PWD/$wrapper" CONFIGS="$config" POOLS=8 THREADS=32 RUNS=1 WARMUP=20 \
        DURATION=${DURATION:-60} MIXED_CONFIGS="" SKIP_EXTRAS=true bash benchmarks/http/run-grid.sh
    newest=$(ls -t "$rec"/*.jfr | head -1)
    mv "$newest" "$rec/$config.jfr"
    cp "$rec/$config/grid.csv" "$here/$config-grid.csv"
    jfr print --events jdk.ExecutionSample --stack-depth 64 "$rec/$config.jfr" \
        | python3 "$here/shares.py" > "$here/$config-shares.txt"
done
