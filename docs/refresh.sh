#!/usr/bin/env bash
# Refreshes the generated pages in docs/ (safety-matrix.md, faults.md, metrics.md and any other page the
# integration suite writes) on purpose. The tests themselves write only under integration-tests/target/docs/;
# this script runs the suite and copies those pages here only when every test passed, so a failed run never
# reaches docs/. Extra arguments go to Maven (e.g. -Dit.mariadb.url=...).
#
#   bash docs/refresh.sh
set -euo pipefail
cd "$(dirname "$0")/.."

generated=integration-tests/target/docs
rm -rf "$generated" integration-tests/target/safety-*.json
./mvnw -B -q -pl integration-tests -am verify "$@"

shopt -s nullglob
pages=("$generated"/*.md)
if [ ${#pages[@]} -eq 0 ]; then
    echo "the integration suite passed but wrote no page into $generated" >&2
    exit 1
fi
cp "${pages[@]}" docs/
echo "refreshed from a passing run: ${pages[*]##*/}"
git status --short -- docs/
